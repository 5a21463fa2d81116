/**
 * What reports an invoice's status to the module: its creation (`create`), the service's answer to an operation
 * the module asked for (`operation`: cancel, due date, refund), a webhook delivery (`webhook`), a reconciliation
 * (`sweep`), or a read of the invoice on a provider call (`provider`). The host's order port hears these
 * (`PaymentStatusChange.source`).
 */
export const STATUS_REPORT_SOURCES = ['create', 'operation', 'webhook', 'sweep', 'provider'] as const;

/** One of {@link STATUS_REPORT_SOURCES}. */
export type StatusReportSource = (typeof STATUS_REPORT_SOURCES)[number];

/**
 * What a status history row can come from: a report, or a person in the admin page (`admin`: a resolution noted on
 * the invoice, never a status change, so never dispatched to the host).
 */
export type StatusChangeSource = StatusReportSource | 'admin';
