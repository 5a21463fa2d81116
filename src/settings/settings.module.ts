import { Controller, DynamicModule, Module, type ModuleMetadata, type Type } from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { CHECKOUT_SETTINGS } from '../checkout/checkout.tokens';
import { INVOICE_PAYMENTS_OPTIONS, section } from '../options/resolve';
import { settingsDefaultsOf } from '../options/settings.schema';
import { AdminNotFoundController } from './admin-api';
import { AdminInvoicesController } from './admin-invoices.controller';
import { AdminInvoicesService } from './admin-invoices.service';
import { AdminOperationsController } from './admin-operations.controller';
import { AdminOperationsService } from './admin-operations.service';
import { AdminSettingsController } from './admin-settings.controller';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { InvoicePaymentsAlertsService } from './alerts.service';
import { DEFAULT_ADMIN_PREFIX, type InvoicePaymentsAdminOptions } from '../options/admin.options';
import {
  INVOICE_PAYMENTS_ADMIN_OPTIONS,
  INVOICE_PAYMENTS_SECRET_BOX,
  INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
} from './constants';
import { CredentialCheckService } from './credential-check.service';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService } from './settings.service';

/** The admin API's controllers; the catch-all last, since routes match in the order they are registered. */
const ADMIN_API = [
  AdminSettingsController,
  AdminInvoicesController,
  AdminOperationsController,
  AdminNotFoundController,
];

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
    return {
      module: SettingsModule,
      imports: workers,
      controllers: [
        ...(admin.ui === false ? [] : [createAdminUiController(prefix)]),
        ...ADMIN_API.map((base) => mounted(prefix, base)),
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

/** A subclass of `base` under `prefix`, so two apps in one process may differ. */
function mounted(prefix: string, base: Type): Type {
  const controller = class extends base {};
  Object.defineProperty(controller, 'name', { value: base.name });
  Controller(prefix.replace(/^\/+|\/+$/g, ''))(controller);
  return controller;
}

/**
 * The settings service, secret box and admin options, without the admin API: every capability reads them. The
 * settings' defaults are the module options each setting declares; the checkout reads the settings in force under
 * its own token.
 */
@Module({})
export class SettingsStoreModule {
  static register(): DynamicModule {
    return {
      module: SettingsStoreModule,
      providers: [
        section(INVOICE_PAYMENTS_ADMIN_OPTIONS, 'admin', (admin) => admin ?? {}),
        {
          provide: INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
          useFactory: settingsDefaultsOf,
          inject: [INVOICE_PAYMENTS_OPTIONS],
        },
        {
          provide: INVOICE_PAYMENTS_SECRET_BOX,
          useFactory: (options: InvoicePaymentsAdminOptions) => SecretBox.create(options.encryption),
          inject: [INVOICE_PAYMENTS_ADMIN_OPTIONS],
        },
        InvoicePaymentsSettingsService,
        { provide: CHECKOUT_SETTINGS, useExisting: InvoicePaymentsSettingsService },
      ],
      exports: [
        InvoicePaymentsSettingsService,
        INVOICE_PAYMENTS_SECRET_BOX,
        INVOICE_PAYMENTS_ADMIN_OPTIONS,
        CHECKOUT_SETTINGS,
      ],
    };
  }
}
