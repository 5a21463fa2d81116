import { DynamicModule, Module, Provider } from '@nestjs/common';
import { OpenInvoicesReconciler, RECONCILIATION_OPTIONS } from './open-invoices.reconciler';
import {
  type OpenReconciliationOptions,
  resolveReconciliationOptions,
} from '../options/reconciliation.options';

/**
 * The reconciliation ({@link OpenInvoicesReconciler}). Needs the global `InvoiceStatusModule`, a `GatewayClient` and
 * TypeORM's default DataSource, as the root module provides.
 */
@Module({})
export class ReconciliationModule {
  static forRoot(options: OpenReconciliationOptions = {}, optionsProvider?: Provider): DynamicModule {
    return {
      module: ReconciliationModule,
      providers: [
        optionsProvider ?? {
          provide: RECONCILIATION_OPTIONS,
          useValue: resolveReconciliationOptions(options),
        },
        OpenInvoicesReconciler,
      ],
      exports: [RECONCILIATION_OPTIONS, OpenInvoicesReconciler],
    };
  }
}
