import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import type { OrderPaymentStatus, PaymentSessionStatus, StatusReportSource } from './status-table';

// The ports: what the host implements (the order port), and what one capability provides for another, so none
// imports another's internals.

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
  /**
   * Set when the change needs a person: `paid_after_cancel` means money arrived for a canceled invoice and must be
   * returned.
   */
  alert?: 'paid_after_cancel' | 'amount_mismatch';
  /**
   * Set when this invoice is a duplicate of the order's invoice in that record (a late invoice of an earlier
   * attempt, or the one replaced by a paid late invoice): its changes do not move the order, which follows the
   * other invoice.
   */
  duplicateOf?: string;
  occurredAt: Date;
}

/**
 * Implemented by the host to learn what happens to its orders' payments. Each applied status change is delivered
 * exactly once, in order per invoice. Throwing makes the module retry the delivery later, so the implementation
 * must be idempotent on (`invoiceRecordId`, `current.code`).
 *
 * Register it with `InvoicePaymentsModule.forRoot({ ..., orderPort: MyOrderPort })` or provide
 * {@link ORDER_PAYMENT_PORT} yourself.
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
  /**
   * `record`: the record the invoice now belongs to, or `null` when it has none (no attempt has its referrer, or it
   * is a second invoice of an attempt that holds one). `foreign`: why it is not this store's invoice although an
   * attempt has its referrer (`InvoiceIdentity`): left alone and alerted.
   */
  adopt(invoice: Invoice, source: StatusReportSource): Promise<Adoption>;
}

/** What {@link LateInvoiceAdopter.adopt} made of an invoice. */
export interface Adoption {
  record: InvoiceRecord | null;
  foreign: string | null;
}

/** Injection token of the {@link CreationSettler} the checkout capability provides. */
export const CREATION_SETTLER = Symbol('INVOICE_PAYMENTS_CREATION_SETTLER');

/**
 * Settles a record whose creation is not settled (`unknown`, or `pending` past its stale time) by asking the service
 * (the checkout's `InvoiceCreationService.settle`). Throws when it cannot decide yet; the caller tries again later.
 */
export interface CreationSettler {
  settle(record: InvoiceRecord): Promise<InvoiceRecord>;
}

/** Injection token of the {@link HostWebhooks} the webhooks capability provides. */
export const HOST_WEBHOOKS = Symbol('INVOICE_PAYMENTS_HOST_WEBHOOKS');

/** What the service reported of an invoice in the lookup that answered a delivery. */
export interface ConfirmedStatus {
  code: number;
  paidCents: number | null;
  grossCents: number | null;
}

/**
 * What became of a delivery a host waited for:
 * - `applied`: confirmed with the service and applied to `record` (`confirmed`: what the service said);
 * - `later`: not settled now (the token could not be checked, the invoice's record or lookup still waits): the
 *   inbox keeps trying on its own, and the host may ask again;
 * - `none`: nothing to act on (refused, a test delivery, an invoice of no record of this store, another's).
 */
export type HostDeliveryOutcome =
  | { kind: 'applied'; record: InvoiceRecord; confirmed: ConfirmedStatus }
  | { kind: 'later'; reason: string }
  | { kind: 'none'; reason: string };

/**
 * The webhook pipeline for hosts that receive deliveries on their own route and answer with the outcome (Medusa's
 * `getWebhookActionAndData`): the module's intake and inbox, the delivery processed as a batch of one and waited for.
 */
export interface HostWebhooks {
  settle(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome>;
}

/** A delivery as a host hands it over: its headers, and the body parsed (`data`) or raw (`rawData`). */
export interface HostDelivery {
  headers?: Record<string, unknown> | null;
  data?: unknown;
  rawData?: unknown;
}
