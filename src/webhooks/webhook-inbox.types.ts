import type { IncomingMessage } from 'node:http';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

// What the intake, the pacer, the confirmation and the processor say to each other. Every webhook file reads this one;
// it imports nothing of theirs, so none of them imports another only for a type.

/** A request refused, with the HTTP status that says why. */
export type Refusal = {
  ok: false;
  status: number;
  message: string;
  retryAfterSeconds?: number;
};

/**
 * A well-formed, authenticated delivery the store has no use for, acknowledged (2xx) with nothing stored and no call
 * to the service. `no_open_invoice`: its invoice is one this store holds closed, or none of its own (one reason for
 * both, so a sender learns no more than before of which numbers are this store's); `test_delivery`: the service's
 * synthetic test delivery, which names no invoice.
 */
export interface IgnoredDelivery {
  reason: 'no_open_invoice' | 'test_delivery';
  message: string;
}

/** A delivery as a host received it: its headers and its body, already parsed by the host. */
export interface DeliveryInput {
  /** The request (its distinct header lines are read), or a record of headers as a framework hands them over. */
  headers: IncomingMessage | Record<string, unknown>;
  body: unknown;
}

/**
 * What storing a delivery did. `duplicate`: a retry or copy of a stored delivery (same dedupe key), answered from its
 * row; `joined`: a new delivery added to an entry of its invoice waiting for its next lookup (which answers both);
 * `problem`: why a dead one is.
 */
export type StoredDelivery = Pick<WebhookInboxEntry, 'id' | 'state' | 'gatewayId'> & {
  duplicate: boolean;
  joined: boolean;
  problem: string | null;
};

/** What became of a delivery: stored, acknowledged without being stored, or refused with the route's HTTP status. */
export type IntakeResult =
  { ok: true; stored: StoredDelivery } | { ok: true; ignored: IgnoredDelivery } | Refusal;

/** When an invoice may be looked up next: now (the lookup is taken), or at a time. */
export type Turn = 'now' | { at: Date };

/** An entry a batch answered: how, and the record it was applied to. */
export type Closing = { entry: WebhookInboxEntry; outcome: string; recordId: string };
