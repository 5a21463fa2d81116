import { DynamicModule, Module, Provider } from '@nestjs/common';
import { INVOICE_PAYMENTS_ADMIN_OPTIONS, INVOICE_PAYMENTS_SECRET_BOX } from './constants';
import { SecretBox } from './secret-box';
import { InvoicePaymentsSettingsService } from './settings.service';
import type { InvoicePaymentsAdminOptions } from './types';

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
