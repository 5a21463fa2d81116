import { Controller, DynamicModule, Module, type ModuleMetadata, type Type } from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { INVOICE_PAYMENTS_OPTIONS } from '../options/resolve';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { AdminNotFoundController } from './admin-api';
import { AdminInvoicesController } from './admin-invoices.controller';
import { AdminInvoicesService } from './admin-invoices.service';
import { AdminOperationsController } from './admin-operations.controller';
import { AdminOperationsService } from './admin-operations.service';
import { AdminSettingsController } from './admin-settings.controller';
import { InvoicePaymentsAlertsService } from './alerts.service';
import { DEFAULT_ADMIN_PREFIX, type InvoicePaymentsAdminOptions } from '../options/admin.options';
import { CredentialCheckService } from './credential-check.service';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService, settingsReaders } from './settings.service';

/** The admin API's controllers; the catch-all last, since routes match in the order they are registered. */
const ADMIN_API = [
  AdminSettingsController,
  AdminInvoicesController,
  AdminOperationsController,
  AdminNotFoundController,
];

/**
 * The admin API and page under `admin.prefix`; the settings service and secret box come from `SettingsStoreModule`.
 * `workers`: the modules whose workers a retry wakes at once.
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

/** The settings service and the secret box, without the admin API: every capability reads them. */
@Module({
  providers: [
    {
      provide: SecretBox,
      useFactory: (options: InvoicePaymentsModuleOptions) => SecretBox.create(options.admin?.encryption),
      inject: [INVOICE_PAYMENTS_OPTIONS],
    },
    InvoicePaymentsSettingsService,
    ...settingsReaders,
  ],
  exports: [InvoicePaymentsSettingsService, SecretBox, ...settingsReaders],
})
export class SettingsStoreModule {}
