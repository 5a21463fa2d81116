export { InvoiceRefund, type RefundState } from './refund.entity';
export { RefundBeingConfirmedError, RefundFailedError, RefundInProgressError } from './errors';
export type { RefundsOptions } from './refund.options';
export { RefundService, type RefundOutcome, type RefundRequest } from './refund.service';
export { RefundSettlementWorker } from './refund-settlement.worker';
export { refundView, type RefundView } from './refund.views';
