import type { RenderContext } from './shapes';
import type { Store } from './store';
import type { ProductDiscountRule, SandboxInvoiceRecord } from './types';

/** Event kinds the sandbox delivers (A13). */
export type EventKind = 'invoice.created' | 'invoice.update' | 'invoice.tracking';

/** What a route answers; the server writes it and runs `after` once the answer has left. */
export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  after?: () => void;
}

/** Timers that `close()` and `reset()` cancel. */
export class Timers {
  private readonly pending = new Map<NodeJS.Timeout, () => void>();
  private stopped = false;

  /** Runs `fn` after `ms` unless cancelled first. */
  after(ms: number, fn: () => void): void {
    this.schedule(ms, fn, () => undefined);
  }

  /** Resolves true after `ms`, or false at once if cancelled meanwhile (the caller should stop). */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) =>
      this.schedule(
        ms,
        () => resolve(true),
        () => resolve(false),
      ),
    );
  }

  /** Cancels everything and refuses new timers: the sandbox is closing. */
  stop(): void {
    this.stopped = true;
    this.cancelAll();
  }

  cancelAll(): void {
    const cancels = [...this.pending.entries()];
    this.pending.clear();
    for (const [t, onCancel] of cancels) {
      clearTimeout(t);
      onCancel();
    }
  }

  private schedule(ms: number, fn: () => void, onCancel: () => void): void {
    if (this.stopped) return onCancel();
    const t = setTimeout(() => {
      this.pending.delete(t);
      fn();
    }, ms);
    this.pending.set(t, onCancel);
  }
}

/** The shared parts every operation uses. */
export interface Core {
  store: Store;
  timers: Timers;
  now(): Date;
  /** The IANA time zone the service counts its days and writes its times in (A2). */
  timeZone: string;
  /** What a product's `discount` takes off: the whole line or each unit (A1). */
  productDiscount: ProductDiscountRule;
  render(): RenderContext;
  /** Queues the event for delivery with the invoice as it is now. */
  emit(event: EventKind, invoice: SandboxInvoiceRecord): void;
  autoProcessCards: boolean;
  cardProcessingDelayMs: number;
}
