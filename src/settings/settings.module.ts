import { DynamicModule, Module, type ModuleMetadata } from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { createAdminFallbackController } from './admin-fallback.controller';
import { AdminInvoicesService } from './admin-invoices.service';
import { createAdminOperationsController } from './admin-operations.controller';
import { AdminOperationsService } from './admin-operations.service';
import { createAdminController } from './admin.controller';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { InvoicePaymentsAlertsService } from './alerts.service';
import { DEFAULT_ADMIN_PREFIX } from './constants';
import { CredentialCheckService } from './credential-check.service';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';

/**
 * The admin API: the admin controllers under `admin.prefix` and their guard, the alerts table, and the admin page
 * (`GET <prefix>/`). The settings service, the secret box and the admin options come from the
 * `SettingsStoreModule` the root module's core provides; the admin operations use the app's `GatewayClient`
 * and `InvoicePaymentProvider` and TypeORM's default DataSource with the module's entities. The route prefix is
 * taken from the options given here: routes are fixed when the module is defined.
 *
 * `workers`: the modules whose workers a retry from the Operations tab wakes at once (the app's webhook and
 * shipping modules); a worker not among them picks the row up at its next poll.
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
        createAdminController(prefix),
        createAdminOperationsController(prefix),
        ...(admin.ui === false ? [] : [createAdminUiController(prefix)]),
        // Last: it answers every path under the prefix no controller above took (401 without a key, else 404).
        createAdminFallbackController(prefix),
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
