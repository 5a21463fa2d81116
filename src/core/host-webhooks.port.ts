import type { InvoiceRecord } from '../persistence/invoice.entity';

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
 * `getWebhookActionAndData`): the same intake and inbox as the module's route, the delivery processed as a batch of
 * one and waited for. Lives in `core/` so the checkout's provider reaches it without importing the webhooks
 * capability.
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
