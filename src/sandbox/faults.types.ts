/** The sandbox's fault rules and its webhook delivery log: what tests inject and what they read back. */
import type { WireWebhookDelivery } from './wire.types';

/**
 * An HTTP fault. A rule matches requests by `method` and `path` (exact, or a prefix ending in `*`; both optional)
 * and, for `times` matching requests (every one when omitted), does what its other fields say. Rules never
 * apply to `/_sandbox`.
 */
export interface FaultRule {
  method?: string;
  path?: string;
  /** Apply to the next N matching requests only, then expire. */
  times?: number;
  /** Wait this long before handling (or failing) the request. */
  latencyMs?: number;
  /** Answer this status (with an A6 body) instead of handling the request; 429 adds `Retry-After`. */
  status?: number;
  /** With `status`: fail only this fraction of matching requests, drawn from a seeded generator. */
  errorRate?: number;
  /** Seed of the generator used by `errorRate` (default 1): the same seed gives the same sequence. */
  seed?: number;
  /** `Retry-After` seconds for a 429 (default 1). */
  retryAfterSeconds?: number;
  /**
   * Handle the request for real, then answer `status` anyway, or (with `hang` / `dropConnection`) never answer or
   * drop the connection: the client sees a failure of a write that took effect.
   */
  afterProcessing?: boolean;
  /** Never answer (the request hangs until the client gives up or the sandbox closes). */
  hang?: boolean;
  /** Destroy the connection without an answer (a network error for the client). */
  dropConnection?: boolean;
  /** Rate limit: at most `limit` matching requests per `windowMs`; beyond it 429 with `Retry-After`. */
  rateLimit?: { limit: number; windowMs: number };
}

/** A stored fault with its identifier and what is left of it. */
export interface ActiveFault extends FaultRule {
  id: string;
  /** Requests still to be affected (`null`: unlimited). */
  remaining: number | null;
}

/** Webhook faults: counts apply to the next deliveries issued (retries of one delivery count once). */
export interface WebhookFaults {
  /** Drop the next N deliveries: logged as `dropped`, never sent. */
  drop?: number;
  /** Send the next N deliveries twice (same `delivery_id`). */
  duplicate?: number;
  /** Hold the next N deliveries and send them in reverse order once the Nth is issued. */
  reorder?: number;
  /** Hold every delivery until `releaseWebhooks()`. */
  hold?: boolean;
}

export interface DeliveryAttempt {
  /** ISO 8601 instant. */
  at: string;
  /** HTTP status of the receiver, or null on a network error. */
  status: number | null;
  error: string | null;
  durationMs: number;
}

export type DeliveryState = 'pending' | 'held' | 'delivered' | 'failed' | 'dropped';

/** One webhook delivery, with every attempt made. */
export interface DeliveryLogEntry {
  /** Unique per log entry (a duplicate has its own `seq` but the same `deliveryId`). */
  seq: number;
  deliveryId: string;
  event: string;
  webhookId: string;
  url: string;
  /** Invoice `id` (invoice number), null for a synthetic test delivery. */
  invoiceId: string | null;
  /** `invoice.status.code` carried by the body. */
  statusCode: number | null;
  /** Request headers as sent; `Webhook` holds both lines [webhook id, token]. */
  headers: Record<string, string | string[]>;
  body: WireWebhookDelivery;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  /** ISO instants. */
  createdAt: string;
  completedAt: string | null;
  /** A second copy sent by the `duplicate` fault. */
  duplicate: boolean;
  /** Sent by `COPY /webhooks` (resend). */
  manual: boolean;
}
