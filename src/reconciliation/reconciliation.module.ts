import { DynamicModule, Module, Provider } from '@nestjs/common';
import { RECONCILIATION_OPTIONS } from './constants';
import { OpenInvoicesReconciler } from './open-invoices.reconciler';
import {
  type OpenReconciliationOptions,
  resolveReconciliationOptions,
} from '../options/reconciliation.options';

/**
 * The reconciliation ({@link OpenInvoicesReconciler}): of open invoices on a schedule, of the whole account on demand.
 * Needs the global status path
 * (`InvoiceStatusModule`), a `GatewayClient` and TypeORM's default DataSource, as the root module provides; uses the
 * checkout's creation settler and late-invoice adopter when present.
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
