import { DynamicModule, Module, Provider } from '@nestjs/common';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, INVOICE_PAYMENTS_SECRET_BOX } from './constants';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService } from './settings.service';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';

/**
 * The runtime settings' read and write side without the admin API: the settings service, the secret box and the
 * admin options. It needs nothing of the other capabilities, so the root module's core provides it to all of them:
 * the client reads its connection from it, the checkout its namespace, the webhook route its token.
 */
@Module({})
export class SettingsStoreModule {
  /**
   * `adminOptions` provides `INVOICE_PAYMENTS_ADMIN_OPTIONS`, `defaults` provides
   * `INVOICE_PAYMENTS_SETTINGS_DEFAULTS` (both derived from the module options by the root module).
   */
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
