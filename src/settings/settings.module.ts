import { Controller, DynamicModule, Module, type ModuleMetadata, type Provider } from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { AdminInvoicesService } from './admin-invoices.service';
import { AdminOperationsService } from './admin-operations.service';
import { InvoicePaymentsAdminController } from './admin.controller';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { InvoicePaymentsAlertsService } from './alerts.service';
import { DEFAULT_ADMIN_PREFIX } from '../options/admin.options';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, INVOICE_PAYMENTS_SECRET_BOX } from './constants';
import { CredentialCheckService } from './credential-check.service';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService } from './settings.service';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';

/**
 * The admin API and page under `admin.prefix`; the settings service, secret box and admin options come from
 * `SettingsStoreModule`. `workers`: the modules whose workers a retry wakes at once.
 */
@Module({})
export class SettingsModule {
  static forRoot(
    admin: InvoicePaymentsAdminOptions = {},
    workers: ModuleMetadata['imports'] = [],
  ): DynamicModule {
    const prefix = admin.prefix ?? DEFAULT_ADMIN_PREFIX;
    // A subclass per prefix, so two apps in one process may differ.
    @Controller(prefix.replace(/^\/+|\/+$/g, ''))
    class Mounted extends InvoicePaymentsAdminController {}
    Object.defineProperty(Mounted, 'name', { value: InvoicePaymentsAdminController.name });
    return {
      module: SettingsModule,
      imports: workers,
      controllers: [
        ...(admin.ui === false ? [] : [createAdminUiController(prefix)]),
        // Last: its catch-all route is its last, and routes match in the order they are registered.
        Mounted,
      ],
      providers: [
        CredentialCheckService,
        AdminInvoicesService,
        AdminOperationsService,
        InvoicePaymentsAlertsService,
        InvoicePaymentsAdminGuard,
      ],
    };
  }
}

/** The settings service, secret box and admin options, without the admin API: every capability reads them. */
@Module({})
export class SettingsStoreModule {
  static register(adminOptions: Provider, defaults: Provider): DynamicModule {
    return {
      module: SettingsStoreModule,
      providers: [
        adminOptions,
        defaults,
        {
          provide: INVOICE_PAYMENTS_SECRET_BOX,
          useFactory: (options: InvoicePaymentsAdminOptions) => SecretBox.create(options.encryption),
          inject: [INVOICE_PAYMENTS_ADMIN_OPTIONS],
        },
        InvoicePaymentsSettingsService,
      ],
      exports: [InvoicePaymentsSettingsService, INVOICE_PAYMENTS_SECRET_BOX, INVOICE_PAYMENTS_ADMIN_OPTIONS],
    };
  }
}
