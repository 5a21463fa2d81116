export { OpenInvoicesReconciler, isOpen } from './open-invoices.reconciler';
export { ReconciliationModule } from './reconciliation.module';
export { RECONCILIATION_OPTIONS } from './constants';
export { nextCheckAt, resolveReconciliationOptions, DEFAULT_RECONCILIATION, NEVER } from './check-schedule';
export type {
  OpenReconciliationOptions,
  ReconciliationRound,
  ResolvedOpenReconciliationOptions,
} from './types';
