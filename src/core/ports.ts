import type { PaymentWebhookAction, WebhookActionResult } from './checkout.types';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import {
  InvoiceStatusCode,
  sessionStatusOfCode,
  statusRow,
  type OrderPaymentStatus,
  type PaymentSessionStatus,
  type StatusReportSource,
} from '../domain/status-table';

/** Injection token of the host's {@link OrderPaymentPort}. */
export const ORDER_PAYMENT_PORT = Symbol('INVOICE_PAYMENTS_ORDER_PAYMENT_PORT');

/** One side of a status change. */
export interface PaymentStatusSnapshot {
  code: number;
  text: string | null;
  sessionStatus: PaymentSessionStatus;
  orderPaymentStatus: OrderPaymentStatus;
}

/** What the module tells the host when an invoice's status moves. */
export interface PaymentStatusChange {
  orderId: string;
  /** The module's local invoice id. */
  invoiceRecordId: string;
  /** The service's invoice number. */
  gatewayId: string | null;
  method: 'pix' | 'billet' | 'card';
  /** `null` when the invoice had no status yet. */
  previous: PaymentStatusSnapshot | null;
  current: PaymentStatusSnapshot;
  /** What reported the change: `create`, `operation`, `webhook`, `sweep` or `provider` (see `StatusReportSource`). */
  source: StatusReportSource;
  /** Set when the change needs a person: `paid_after_cancel` means money to return for a canceled invoice. */
  alert?: 'paid_after_cancel' | 'amount_mismatch';
  /** Set when this invoice duplicates the order's invoice in that record: its changes do not move the order. */
  duplicateOf?: string;
  occurredAt: Date;
}

/**
 * The host's view of its orders' payments: each applied change once, in order per invoice; a throw is retried later,
 * so be idempotent on (`invoiceRecordId`, `current.code`). Register with `forRoot({ orderPort })` (docs/hosts.md).
 */
export interface OrderPaymentPort {
  onPaymentStatusChanged(change: PaymentStatusChange): Promise<void>;
}

/** Injection token of the {@link LateInvoiceAdopter} the checkout capability provides. */
export const LATE_INVOICE_ADOPTER = Symbol('INVOICE_PAYMENTS_LATE_INVOICE_ADOPTER');

/**
 * Matches a service invoice that no record holds by its number to its order, by the referrer it was created under,
 * and keeps the order at one payable invoice (the checkout's `LateInvoiceService`).
 */
export interface LateInvoiceAdopter {
  /** `record`: where the invoice now belongs, or `null`; `foreign`: why it is not ours (left alone, alerted). */
  adopt(invoice: Invoice, source: StatusReportSource): Promise<Adoption>;
}

/** What {@link LateInvoiceAdopter.adopt} made of an invoice. */
export interface Adoption {
  record: InvoiceRecord | null;
  foreign: string | null;
  /** How an invoice of the store's that no record may take was handled (a second one under a referrer). */
  ignored?: string;
  /** The report was applied to `record` with its link (or found nothing to change): nothing more to apply. */
  applied?: true;
}

/** Injection token of the {@link CreationResolver} the checkout capability provides. */
export const CREATION_RESOLVER = Symbol('INVOICE_PAYMENTS_CREATION_RESOLVER');

/** Asks the service how a creation of unknown outcome ended; throws while it cannot tell (the caller retries). */
export interface CreationResolver {
  resolveCreation(record: InvoiceRecord): Promise<InvoiceRecord>;
}

/** Injection token of the {@link HostWebhooks} the webhooks capability provides. */
export const HOST_WEBHOOKS = Symbol('INVOICE_PAYMENTS_HOST_WEBHOOKS');

/** What the service reported of an invoice in the lookup that answered a delivery. */
export type ConfirmedStatus = Pick<InvoiceRecord, 'paidCents' | 'grossCents'> & { code: number };

/** A delivery's host action from the record as it now stands (`confirmed`: the lookup), in cents at most its amount. */
export function webhookActionOf(record: InvoiceRecord, confirmed?: ConfirmedStatus): WebhookActionResult {
  const code = confirmed?.code ?? record.statusCode;
  const session = sessionStatusOfCode(code, record.amountMismatch);
  if (session === null) return { action: 'not_supported' };
  // Only paid is a capture: a refund's status also reads captured for the session.
  const laterThanPaid = statusRow(code)!.session === 'captured' && code !== InvoiceStatusCode.Paid;
  let action: PaymentWebhookAction = session === 'error' ? 'failed' : session;
  if (laterThanPaid) action = 'not_supported';
  const amount = Math.min(confirmed?.paidCents ?? record.paidCents ?? record.amountCents, record.amountCents);
  return { action, data: { session_id: record.id, amount } };
}

/**
 * What became of a delivery a host waited for: `applied` (confirmed with the service), `later` (the inbox keeps
 * trying; the host may ask again) or `none` (nothing to act on).
 */
export type HostDeliveryOutcome =
  | { kind: 'applied'; record: InvoiceRecord; confirmed: ConfirmedStatus }
  | { kind: 'later'; reason: string }
  | { kind: 'none'; reason: string };

/** Thrown for a delivery a host waited for that could not be settled now: its sender (Medusa's event bus) retries. */
export class WebhookNotSettledError extends Error {
  constructor(message: string) {
    super(`invoice-payments webhook not settled yet, to be retried: ${message}`);
    this.name = 'WebhookNotSettledError';
  }
}

/**
 * A host's action for what became of its delivery: `later` throws {@link WebhookNotSettledError} (nothing is lost
 * when its sender retries), `none` is warned of and `not_supported`, `applied` is {@link webhookActionOf}.
 */
export function webhookActionOfOutcome(
  outcome: HostDeliveryOutcome,
  logger: { warn(message: string): unknown },
): WebhookActionResult {
  if (outcome.kind === 'later') throw new WebhookNotSettledError(outcome.reason);
  if (outcome.kind === 'none') {
    logger.warn(`webhook delivery not acted on: ${outcome.reason}`);
    return { action: 'not_supported' };
  }
  return webhookActionOf(outcome.record, outcome.confirmed);
}

/** The webhook pipeline for hosts that take deliveries on their own route and answer with the outcome (Medusa). */
export interface HostWebhooks {
  receive(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome>;
}

/** A delivery as a host hands it over: its headers, and the body parsed (`data`) or raw (`rawData`). */
export interface HostDelivery {
  headers?: Record<string, unknown> | null;
  data?: unknown;
  rawData?: unknown;
}
