import { transitionNoteCode } from '../core/status-table';
import { INVOICE_STATUS_NAMES, isKnownStatusCode } from '../gateway/status';
import type { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import type { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import type { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';

/** A webhook inbox entry as the admin API lists it: no payload (it holds the customer's data). */
export type AdminInboxView = ReturnType<typeof inboxView>;
/** A tracking outbox row as the admin API lists it. */
export type AdminOutboxView = ReturnType<typeof outboxView>;
/** One status report of an invoice (`InvoiceStatusHistory`). */
export type AdminHistoryView = ReturnType<typeof historyView>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function inboxView(e: WebhookInboxEntry) {
  return {
    id: e.id,
    state: e.state as string,
    event: e.event,
    deliveryId: e.deliveryId,
    /** The service's invoice number, when the delivery was readable. */
    gatewayId: e.gatewayId,
    statusCode: e.statusCode,
    attempts: e.attempts,
    /** Why the last attempt failed, or why the entry is dead. */
    lastError: e.lastError,
    outcome: e.outcome,
    invoiceRecordId: e.invoiceRecordId,
    receivedAt: e.receivedAt.toISOString(),
    nextAttemptAt: iso(e.nextAttemptAt),
    processedAt: iso(e.processedAt),
    /** Whether `POST /webhooks/inbox/:id/retry` may take it (an entry unreadable on arrival may not). */
    retryable: e.state === 'pending' || (e.state === 'dead' && e.attempts > 0),
  };
}

export function outboxView(o: TrackingOutbox) {
  return {
    id: o.id,
    orderId: o.orderId,
    code: o.code,
    carrier: o.carrier,
    status: o.status as string,
    attempts: o.attempts,
    lastError: o.lastError,
    /** Kind of the last failure (`validation`, `state_conflict`, `timeout`, ... or `unknown`), for the page's words. */
    lastErrorCode: o.lastErrorKind,
    invoiceRecordId: o.invoiceRecordId,
    nextAttemptAt: o.nextAttemptAt.toISOString(),
    recordedAt: o.recordedAt.toISOString(),
    sentAt: iso(o.sentAt),
    retryable: o.status === 'pending' || o.status === 'failed',
  };
}

export function historyView(h: InvoiceStatusHistory) {
  return {
    id: h.id,
    fromCode: h.fromCode,
    toCode: h.toCode,
    /** The spec's name of `toCode`, `null` for unlisted codes. */
    toName: h.toCode !== null && isKnownStatusCode(h.toCode) ? INVOICE_STATUS_NAMES[h.toCode] : null,
    statusText: h.statusText,
    source: h.source as string,
    applied: h.applied,
    note: h.note,
    /** The note as a stable code for the page (`unchanged`, `backwards`, ...); `null`: shown as written. */
    noteCode: h.alert === 'amount_mismatch' ? 'amount_mismatch' : transitionNoteCode(h.note),
    alert: h.alert,
    createdAt: h.createdAt.toISOString(),
  };
}
