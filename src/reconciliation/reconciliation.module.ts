import { Module } from '@nestjs/common';
import { resolveReconciliationOptions } from '../options/reconciliation.options';
import { section } from '../options/resolve';
import { OpenInvoicesReconciler, RECONCILIATION_OPTIONS } from './open-invoices.reconciler';

/**
 * The reconciliation ({@link OpenInvoicesReconciler}), with the root module's `reconciliation` options. Needs the
 * global `InvoiceStatusModule`, a `GatewayClient` and TypeORM's default DataSource, as the root module provides.
 */
@Module({
  providers: [
    section(RECONCILIATION_OPTIONS, 'reconciliation', resolveReconciliationOptions),
    OpenInvoicesReconciler,
  ],
  exports: [RECONCILIATION_OPTIONS, OpenInvoicesReconciler],
})
export class ReconciliationModule {}
