import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { messageOf } from '../core/events';
import type { ConfirmedStatus } from '../core/ports';
import { CLOCK, type Clock } from '../domain/clock';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import { LookupPacer } from './lookup-pacer';
import type { WebhookInboxEntry } from './webhook-inbox.entity';

/** Invoices remembered at once (least recently used dropped first). */
const MAX_REMEMBERED = 10_000;
/** How long what a lookup found of an invoice without a record here holds. */
const VERDICT_MS = 3_600_000;

/**
 * What confirming deliveries of an invoice came to. `confirmed`: the invoice as the service reports it now.
 * `put-off`: its lookup waits for its turn. `retry`: the service could not answer (or, for an invoice a record holds,
 * does not know it yet). `unknown`: the service does not know an invoice no record here holds. `wait-for-record`: the
 * service knows it, and no record here holds it yet. Only the processor writes what follows from it.
 */
export type Confirmation =
  | { kind: 'confirmed'; invoice: Invoice; startedAt: Date }
  | { kind: 'put-off'; at: Date }
  | { kind: 'retry'; problem: string }
  | { kind: 'unknown'; problem: string }
  | { kind: 'wait-for-record' };

/** The lookup that answered the deliveries of an invoice that arrived before it started, and was applied. */
type Answer = { at: number; recordId: string; status: ConfirmedStatus };

/**
 * A delivery's invoice as the service reports it now, when the pacer lets it be looked up. A delivery is a trigger:
 * a lookup that starts after it arrived answers it, so waiting for the invoice's next turn loses nothing.
 */
@Injectable()
export class DeliveryConfirmation {
  private readonly answers = new LRUCache<string, Answer>({ max: MAX_REMEMBERED });
  /** What a lookup of an invoice no record holds found: unknown at the service, or known there only. */
  private readonly verdicts = new LRUCache<string, { verdict: 'unknown' | 'no-record'; until: number }>({
    max: MAX_REMEMBERED,
  });

  constructor(
    private readonly gateway: GatewayClient,
    private readonly pacer: LookupPacer,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The invoice now, one lookup for all `entries` (`local`: a record holds its number or referrer). */
  async confirm(entries: WebhookInboxEntry[], gatewayId: string, local: boolean): Promise<Confirmation> {
    if (!local) {
      const verdict = this.verdictOf(gatewayId);
      if (verdict === 'unknown') return { kind: 'unknown', problem: unknownProblem(gatewayId) };
      if (verdict === 'no-record' || entries[0].waitingFor === 'record') return { kind: 'wait-for-record' };
    }
    const turn = this.pacer.next(gatewayId, !local);
    if (turn !== 'now') return { kind: 'put-off', at: turn.at };
    const startedAt = this.clock.date();
    let invoice: Invoice | null;
    try {
      invoice = await this.gateway.findInvoiceById(gatewayId);
    } catch (err) {
      return {
        kind: 'retry',
        problem: `could not confirm invoice ${gatewayId} with the service: ${messageOf(err)}`,
      };
    }
    if (local) {
      return invoice
        ? { kind: 'confirmed', invoice, startedAt }
        : { kind: 'retry', problem: unknownProblem(gatewayId) };
    }
    // Before any await, so a delivery of it admitted meanwhile waits for a record instead of asking again.
    this.verdicts.set(gatewayId, {
      verdict: invoice ? 'no-record' : 'unknown',
      until: this.clock.now() + VERDICT_MS,
    });
    return invoice
      ? { kind: 'confirmed', invoice, startedAt }
      : { kind: 'unknown', problem: unknownProblem(gatewayId) };
  }

  /** The lookup that answered deliveries of `gatewayId` received up to `receivedBefore`, remembered in this process. */
  answerOf(gatewayId: string, receivedBefore: Date): Answer | null {
    const answer = this.answers.get(gatewayId);
    return answer !== undefined && receivedBefore.getTime() < answer.at ? answer : null;
  }

  /** A lookup that started at `startedAt` was applied to record `recordId`: it answers deliveries that came before. */
  applied(gatewayId: string, startedAt: Date, recordId: string, invoice: Invoice): void {
    const known = this.answers.get(gatewayId);
    if (known !== undefined && known.at >= startedAt.getTime()) return;
    const { paidCents, grossCents } = invoice.amounts;
    const status = { code: invoice.status.code, paidCents, grossCents };
    this.answers.set(gatewayId, { at: startedAt.getTime(), recordId, status });
  }

  /** A record holds the invoice now: what was found of it without one no longer holds. */
  forget(gatewayId: string): void {
    this.verdicts.delete(gatewayId);
  }

  private verdictOf(gatewayId: string): 'unknown' | 'no-record' | null {
    const judged = this.verdicts.get(gatewayId);
    return judged !== undefined && judged.until > this.clock.now() ? judged.verdict : null;
  }
}

function unknownProblem(gatewayId: string): string {
  return `the service does not know invoice ${gatewayId}`;
}
