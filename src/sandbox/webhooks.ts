import { randomUUID } from 'node:crypto';
import type { WireWebhookDelivery } from './wire.types';
import type { Core, EventKind } from './core';
import { localDateTime } from './dates';
import { SandboxError } from './errors';
import { renderCurrent } from './shapes';
import type { DeliveryLogEntry, SandboxInvoiceRecord, WebhookFaults, WebhookRegistration } from './types';
import { sendWebhook } from './webhook-send';

export interface DeliveryOptions {
  accountId: string;
  gatewayName: string;
  attempts: number;
  baseDelayMs: number;
  factor: number;
  timeoutMs: number;
}

interface Job {
  entry: DeliveryLogEntry;
  payload: string;
  generation: number;
}

/**
 * Webhook deliveries (A13): one log entry per delivery, sent to each destination in the order issued (a queue
 * per URL), retried with exponential backoff on a non-2xx answer or a network error, with the same
 * `delivery_id` every time. Webhook faults (drop, duplicate, reorder, hold) act here.
 */
export class Deliveries {
  private readonly log: DeliveryLogEntry[] = [];
  private readonly queues = new Map<string, Promise<void>>();
  private faults: Required<WebhookFaults> = { drop: 0, duplicate: 0, reorder: 0, hold: false };
  private held: Job[] = [];
  private reordering: Job[] = [];
  private pending = 0;
  private idle: Array<() => void> = [];
  private generation = 0;
  private seq = 0;

  constructor(
    private readonly core: Core,
    private readonly options: DeliveryOptions,
  ) {}

  /** Queues `event` for every destination of the invoice (A13): its `payment.webhook`, else each registered URL. */
  emit(event: EventKind, rec: SandboxInvoiceRecord, hooks: WebhookRegistration[]): void {
    const targets = rec.webhookUrl
      ? hooks.filter((h) => h.id === 'default').map((h) => ({ hook: h, url: rec.webhookUrl as string }))
      : hooks.filter((h) => h.url !== null).map((h) => ({ hook: h, url: h.url as string }));
    const invoice = renderCurrent(this.core.render(), rec);
    for (const { hook, url } of targets) {
      const body: WireWebhookDelivery = {
        event,
        delivery_id: randomUUID(),
        webhook: hook.id,
        sent_at: localDateTime(this.core.now(), this.core.timeZone),
        invoice,
      };
      this.issue(this.entry(hook, url, body, false));
    }
  }

  /** Sends one delivery once, outside the queue and the faults (the resend operation, §4.8). */
  async sendNow(hook: WebhookRegistration, url: string, body: WireWebhookDelivery) {
    const entry = this.entry(hook, url, body, true);
    this.log.push(entry);
    const outcome = await sendWebhook(url, entry.headers, JSON.stringify(body), this.options.timeoutMs);
    this.record(entry, outcome);
    entry.state = ok(outcome.status) ? 'delivered' : 'failed';
    entry.completedAt = new Date().toISOString();
    return outcome;
  }

  /** The latest delivery of `event` to webhook `hookId`, if any. */
  latest(event: string, hookId: string): DeliveryLogEntry | undefined {
    return [...this.log].reverse().find((e) => e.event === event && e.webhookId === hookId && !e.duplicate);
  }

  entries(): DeliveryLogEntry[] {
    return structuredClone(this.log);
  }

  setFaults(faults: WebhookFaults): void {
    this.faults = {
      drop: faults.drop ?? 0,
      duplicate: faults.duplicate ?? 0,
      reorder: faults.reorder ?? 0,
      hold: !!faults.hold,
    };
  }

  currentFaults(): WebhookFaults {
    return { ...this.faults };
  }

  /** Sends the held deliveries in the order asked; answers how many. */
  release(order: 'fifo' | 'reverse' = 'fifo'): number {
    const jobs = [...this.held, ...this.reordering];
    this.held = [];
    this.reordering = [];
    for (const job of order === 'reverse' ? jobs.reverse() : jobs) this.enqueue(job);
    return jobs.length;
  }

  /** Resolves once nothing is queued or being retried (held deliveries do not count). */
  waitIdle(timeoutMs = 10000): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        // A SandboxError, so the HTTP control answers 504 (not "failed unexpectedly"); in process it still rejects.
        () => reject(new SandboxError(504, 'timeout', `deliveries still pending after ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops sending (the sandbox is closing): queued and retrying deliveries end; the log stays readable. */
  stop(): void {
    this.generation++;
    this.held = [];
    this.reordering = [];
    this.pending = 0;
    this.notifyIdle();
  }

  /** Forgets the log, the faults and everything queued; running retries stop at their next step. */
  reset(): void {
    this.generation++;
    this.log.length = 0;
    this.queues.clear();
    this.held = [];
    this.reordering = [];
    this.setFaults({});
    this.pending = 0;
    this.notifyIdle();
  }

  private entry(
    hook: WebhookRegistration,
    url: string,
    body: WireWebhookDelivery,
    manual: boolean,
  ): DeliveryLogEntry {
    const token = Buffer.from(`${hook.merchantToken}:${hook.token}`).toString('base64');
    return {
      seq: ++this.seq,
      deliveryId: body.delivery_id,
      event: body.event,
      webhookId: hook.id,
      url,
      invoiceId: body.invoice?.id ?? null,
      statusCode: body.invoice?.status.code ?? null,
      headers: {
        'Content-Type': 'application/json',
        UserId: this.options.accountId,
        Gateway: this.options.gatewayName,
        Webhook: [hook.id, token],
      },
      body,
      state: 'pending',
      attempts: [],
      createdAt: new Date().toISOString(),
      completedAt: null,
      duplicate: false,
      manual,
    };
  }

  private issue(entry: DeliveryLogEntry): void {
    this.log.push(entry);
    const job: Job = { entry, payload: JSON.stringify(entry.body), generation: this.generation };
    const f = this.faults;
    if (f.drop > 0) {
      f.drop--;
      entry.state = 'dropped';
      entry.completedAt = new Date().toISOString();
      return;
    }
    if (f.duplicate > 0) {
      f.duplicate--;
      const copy: DeliveryLogEntry = { ...structuredClone(entry), seq: ++this.seq, duplicate: true };
      this.log.push(copy);
      this.place({ ...job, entry: copy });
    }
    this.place(job);
  }

  private place(job: Job): void {
    const f = this.faults;
    if (f.hold) {
      job.entry.state = 'held';
      this.held.push(job);
    } else if (f.reorder > 0) {
      job.entry.state = 'held';
      this.reordering.push(job);
      if (--f.reorder === 0) {
        const batch = this.reordering.reverse();
        this.reordering = [];
        for (const j of batch) this.enqueue(j);
      }
    } else this.enqueue(job);
  }

  private enqueue(job: Job): void {
    job.entry.state = 'pending';
    this.pending++;
    const url = job.entry.url;
    const next = (this.queues.get(url) ?? Promise.resolve()).then(() => this.run(job));
    this.queues.set(url, next);
    void next.then(() => {
      if (this.queues.get(url) === next) this.queues.delete(url);
      if (job.generation !== this.generation) return;
      this.pending--;
      this.notifyIdle();
    });
  }

  private async run(job: Job): Promise<void> {
    const { entry } = job;
    const { attempts, baseDelayMs, factor, timeoutMs } = this.options;
    for (let n = 1; n <= attempts; n++) {
      if (job.generation !== this.generation) return;
      const outcome = await sendWebhook(entry.url, entry.headers, job.payload, timeoutMs);
      this.record(entry, outcome);
      if (ok(outcome.status)) {
        entry.state = 'delivered';
        entry.completedAt = new Date().toISOString();
        return;
      }
      if (n < attempts && !(await this.core.timers.sleep(baseDelayMs * factor ** (n - 1)))) return;
    }
    entry.state = 'failed';
    entry.completedAt = new Date().toISOString();
  }

  private record(
    entry: DeliveryLogEntry,
    outcome: { status: number | null; error: string | null; durationMs: number },
  ) {
    entry.attempts.push({
      at: new Date().toISOString(),
      status: outcome.status,
      error: outcome.error,
      durationMs: outcome.durationMs,
    });
  }

  private notifyIdle(): void {
    if (this.pending > 0) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }
}

function ok(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}
