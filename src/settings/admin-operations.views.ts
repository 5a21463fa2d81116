import { transitionNoteCode } from '../core/status-transitions';
import { INVOICE_STATUS_NAMES, isKnownStatusCode } from '../gateway/status';
import type { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import type { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import type { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';

/** No payload: it holds the customer's data. */
export type AdminInboxView = ReturnType<typeof inboxView>;
export type AdminOutboxView = ReturnType<typeof outboxView>;
export type AdminHistoryView = ReturnType<typeof historyView>;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function inboxView(e: WebhookInboxEntry) {
  return {
    id: e.id,
    state: e.state as string,
    event: e.event,
    deliveryId: e.deliveryId,
    gatewayId: e.gatewayId,
    statusCode: e.statusCode,
    attempts: e.attempts,
    lastError: e.lastError,
    outcome: e.outcome,
    invoiceRecordId: e.invoiceRecordId,
    receivedAt: e.receivedAt.toISOString(),
    nextAttemptAt: iso(e.nextAttemptAt),
    processedAt: iso(e.processedAt),
    /** An entry unreadable on arrival may not be retried. */
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
    toName: h.toCode !== null && isKnownStatusCode(h.toCode) ? INVOICE_STATUS_NAMES[h.toCode] : null,
    statusText: h.statusText,
    source: h.source as string,
    applied: h.applied,
    note: h.note,
    /** `null`: the note is shown as written. */
    noteCode: h.alert === 'amount_mismatch' ? 'amount_mismatch' : transitionNoteCode(h.note),
    alert: h.alert,
    createdAt: h.createdAt.toISOString(),
  };
}
