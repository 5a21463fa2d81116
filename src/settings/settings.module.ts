import { DynamicModule, Module, Provider } from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { createAdminFallbackController } from './admin-fallback.controller';
import { AdminInvoicesService } from './admin-invoices.service';
import { createAdminOperationsController } from './admin-operations.controller';
import { AdminOperationsService } from './admin-operations.service';
import { createAdminController } from './admin.controller';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { InvoicePaymentsAlertsService } from './alerts.service';
import {
  DEFAULT_ADMIN_PREFIX,
  INVOICE_PAYMENTS_ADMIN_OPTIONS,
  INVOICE_PAYMENTS_SECRET_BOX,
  INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
} from './constants';
import { CredentialCheckService } from './credential-check.service';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService } from './settings.service';
import type { InvoicePaymentsAdminOptions, InvoicePaymentsSettingsDefaults } from './types';

/** Wiring choices of {@link SettingsModule.forRoot} beyond the admin options. */
export interface SettingsModuleExtras {
  /**
   * A provider of `INVOICE_PAYMENTS_SETTINGS_DEFAULTS` (the root module derives it from its options); default: the
   * given `defaults`.
   */
  defaultsProvider?: Provider;
  /** Defaults of the settings when no `defaultsProvider` is given. */
  defaults?: InvoicePaymentsSettingsDefaults;
  /**
   * A provider of `INVOICE_PAYMENTS_ADMIN_OPTIONS` (for async module options); default: the given options. The
   * route prefix is always taken from the options given here: routes are fixed when the module is defined.
   */
  adminOptionsProvider?: Provider;
}

/**
 * Runtime settings and the admin API: the settings row and its service (exported), secret encryption, the admin
 * controllers under `admin.prefix` and their guard, the alerts table, and the admin page (`GET <prefix>/`). The admin operations use the app's `GatewayClient` and
 * `InvoicePaymentProvider`, which must be injectable where this module is imported (the root module provides them),
 * and TypeORM's default DataSource with the module's entities.
 */
@Module({})
export class SettingsModule {
  static forRoot(admin: InvoicePaymentsAdminOptions = {}, extras: SettingsModuleExtras = {}): DynamicModule {
    const prefix = admin.prefix ?? DEFAULT_ADMIN_PREFIX;
    return {
      module: SettingsModule,
      controllers: [
        createAdminController(prefix),
        createAdminOperationsController(prefix),
        ...(admin.ui === false ? [] : [createAdminUiController(prefix)]),
        // Last: it answers every path under the prefix no controller above took (401 without a key, else 404).
        createAdminFallbackController(prefix),
      ],
      providers: [
        extras.adminOptionsProvider ?? { provide: INVOICE_PAYMENTS_ADMIN_OPTIONS, useValue: admin },
        extras.defaultsProvider ?? {
          provide: INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
          useValue: extras.defaults ?? {},
        },
        {
          provide: INVOICE_PAYMENTS_SECRET_BOX,
          useFactory: (options: InvoicePaymentsAdminOptions) => SecretBox.create(options.encryption),
          inject: [INVOICE_PAYMENTS_ADMIN_OPTIONS],
        },
        InvoicePaymentsSettingsService,
        CredentialCheckService,
        AdminInvoicesService,
        AdminOperationsService,
        InvoicePaymentsAlertsService,
        InvoicePaymentsAdminGuard,
      ],
      exports: [InvoicePaymentsSettingsService, INVOICE_PAYMENTS_SECRET_BOX],
    };
  }
}
