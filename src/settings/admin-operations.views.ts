import { transitionNoteCode, type TransitionNoteCode } from '../core/status-table';
import { INVOICE_STATUS_NAMES, isKnownStatusCode } from '../gateway/status';
import type { InvoiceStatusHistory } from '../persistence/invoice-status-history.entity';
import type { TrackingOutbox } from '../shipping/tracking-outbox.entity';
import type { WebhookInboxEntry } from '../webhooks/webhook-inbox.entity';

/** A webhook inbox entry as the admin API lists it: no payload (it holds the customer's data). */
export interface AdminInboxView {
  id: string;
  state: string;
  event: string | null;
  deliveryId: string | null;
  /** The service's invoice number, when the delivery was readable. */
  gatewayId: string | null;
  statusCode: number | null;
  attempts: number;
  /** Why the last attempt failed, or why the entry is dead. */
  lastError: string | null;
  outcome: string | null;
  invoiceRecordId: string | null;
  receivedAt: string;
  nextAttemptAt: string | null;
  processedAt: string | null;
  /** Whether `POST /webhooks/inbox/:id/retry` may take it (an entry unreadable on arrival may not). */
  retryable: boolean;
}

/** A tracking outbox row as the admin API lists it. */
export interface AdminOutboxView {
  id: string;
  orderId: string;
  code: string;
  carrier: string | null;
  status: string;
  attempts: number;
  lastError: string | null;
  /** Kind of the last failure (`validation`, `state_conflict`, `timeout`, ... or `unknown`), for the page's words. */
  lastErrorCode: string | null;
  invoiceRecordId: string;
  nextAttemptAt: string;
  recordedAt: string;
  sentAt: string | null;
  retryable: boolean;
}

/** One status report of an invoice (`InvoiceStatusHistory`). */
export interface AdminHistoryView {
  id: string;
  fromCode: number | null;
  toCode: number | null;
  /** The spec's name of `toCode`, `null` for unlisted codes. */
  toName: string | null;
  statusText: string | null;
  source: string;
  applied: boolean;
  note: string | null;
  /**
   * The note as a stable code for the page: `unchanged`, `backwards`, `unknown_code`, `paid_after_close`,
   * `amount_mismatch`; `null` for other notes (shown as written).
   */
  noteCode: TransitionNoteCode | 'amount_mismatch' | null;
  alert: string | null;
  createdAt: string;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function inboxView(e: WebhookInboxEntry): AdminInboxView {
  return {
    id: e.id,
    state: e.state,
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
    retryable: e.state === 'pending' || (e.state === 'dead' && e.attempts > 0),
  };
}

export function outboxView(o: TrackingOutbox): AdminOutboxView {
  return {
    id: o.id,
    orderId: o.orderId,
    code: o.code,
    carrier: o.carrier,
    status: o.status,
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

export function historyView(h: InvoiceStatusHistory): AdminHistoryView {
  return {
    id: h.id,
    fromCode: h.fromCode,
    toCode: h.toCode,
    toName: h.toCode !== null && isKnownStatusCode(h.toCode) ? INVOICE_STATUS_NAMES[h.toCode] : null,
    statusText: h.statusText,
    source: h.source,
    applied: h.applied,
    note: h.note,
    noteCode: h.alert === 'amount_mismatch' ? 'amount_mismatch' : transitionNoteCode(h.note),
    alert: h.alert,
    createdAt: h.createdAt.toISOString(),
  };
}
