import {
  All,
  Controller,
  DynamicModule,
  Module,
  NotFoundException,
  type ModuleMetadata,
  type Type,
} from '@nestjs/common';
import { createAdminUiController } from '../admin-ui/admin-ui.controller';
import { AdminApi } from './admin-errors.filter';
import { AdminInvoicesService } from './admin-invoices.service';
import { InvoicePaymentsAdminOperationsController } from './admin-operations.controller';
import { AdminOperationsService } from './admin-operations.service';
import { InvoicePaymentsAdminController } from './admin.controller';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { InvoicePaymentsAlertsService } from './alerts.service';
import { DEFAULT_ADMIN_PREFIX } from './constants';
import { CredentialCheckService } from './credential-check.service';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';

/**
 * Every other path under the admin prefix: guarded like the API, so without a valid key an unknown route answers
 * 401 exactly as a known one does (the routes cannot be listed by probing), and with a key a plain 404 that does
 * not repeat the path.
 */
@AdminApi()
class InvoicePaymentsAdminFallbackController {
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }
}

/** `base` mounted at `prefix`: a subclass per prefix, so two apps in one process may differ. */
function mountedAt<T>(prefix: string, base: Type<T>): Type<T> {
  @Controller(prefix.replace(/^\/+|\/+$/g, ''))
  class Mounted extends (base as Type<object>) {}
  Object.defineProperty(Mounted, 'name', { value: base.name });
  return Mounted as Type<T>;
}

/**
 * The admin API: the admin controllers under `admin.prefix` and their guard, the alerts table, and the admin page
 * (`GET <prefix>/`). The settings service, the secret box and the admin options come from the
 * `SettingsStoreModule` the root module's core provides. Routes are fixed when the module is defined, so the
 * prefix is taken from the options given here.
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
        mountedAt(prefix, InvoicePaymentsAdminController),
        mountedAt(prefix, InvoicePaymentsAdminOperationsController),
        ...(admin.ui === false ? [] : [createAdminUiController(prefix)]),
        // Last: routes match in the order they are registered.
        mountedAt(prefix, InvoicePaymentsAdminFallbackController),
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
