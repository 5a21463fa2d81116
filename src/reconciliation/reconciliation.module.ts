import { DynamicModule, Module } from '@nestjs/common';
import {
  type OpenReconciliationOptions,
  resolveReconciliationOptions,
} from '../options/reconciliation.options';
import { section } from '../options/resolve';
import { OpenInvoicesReconciler, RECONCILIATION_OPTIONS } from './open-invoices.reconciler';

/**
 * The reconciliation ({@link OpenInvoicesReconciler}), with `options`, else the root module's `reconciliation`. Needs
 * the global `InvoiceStatusModule`, a `GatewayClient` and TypeORM's default DataSource, as the root module provides.
 */
@Module({})
export class ReconciliationModule {
  static forRoot(options?: OpenReconciliationOptions): DynamicModule {
    const given = { provide: RECONCILIATION_OPTIONS, useValue: resolveReconciliationOptions(options) };
    return {
      module: ReconciliationModule,
      providers: [
        options ? given : section(RECONCILIATION_OPTIONS, 'reconciliation', resolveReconciliationOptions),
        OpenInvoicesReconciler,
      ],
      exports: [RECONCILIATION_OPTIONS, OpenInvoicesReconciler],
    };
  }
}
