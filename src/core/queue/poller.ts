import type { Logger, OnModuleDestroy } from '@nestjs/common';
import type { Clock } from '../../domain/clock';
import { messageOf } from '../events';

const HOUR_MS = 3_600_000;

/**
 * A poll loop for a worker to extend: one {@link round} at a time, every `intervalMs` while started. The timer never
 * keeps the process alive; a failed round or upkeep is logged and the poll goes on. Nest stops it (`onModuleDestroy`)
 * before TypeORM closes its connections, which the round under way still needs.
 */
export abstract class Poller<T> implements OnModuleDestroy {
  private started = false;
  private stops = 0;
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<T> | null = null;
  private kicked = false;
  private lastUpkeep = 0;
  private upkeep: Promise<unknown> = Promise.resolve();

  constructor(
    /** Names the job in the log: `${name} round failed`. */
    private readonly name: string,
    protected readonly logger: Logger,
    private readonly intervalMs: number,
    /** The module's clock (`CLOCK`): the hourly upkeep counts its hours on it. */
    protected readonly clock: Clock,
  ) {}

  /** One round; `stopped()` turns true once `stop()` is called, so the round can hand back what it has not reached. */
  protected abstract round(stopped: () => boolean): Promise<T>;

  /** `true` when more is due at once (a full batch): the next round starts without waiting. */
  protected again(_result: T): boolean {
    return false;
  }

  /** Upkeep (a retention purge) the poll starts at most hourly in the background, never holding up a round. */
  protected hourly?(stopped: () => boolean): Promise<unknown>;

  onModuleDestroy(): Promise<void> {
    return this.stop();
  }

  /** `true` between `start()` and `stop()`. */
  get running(): boolean {
    return this.started;
  }

  /** Starts polling, the first round at once. Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops polling and waits for the round and the upkeep under way (both see `stopped()`). */
  async stop(): Promise<void> {
    this.started = false;
    this.stops++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([this.current, this.upkeep]);
  }

  /** Asks for a round now rather than at the next poll. No-op while stopped. */
  kick(): void {
    if (!this.started) return;
    if (this.current) this.kicked = true;
    else this.schedule(0);
  }

  /** Runs one round now, started or not; a call while a round runs joins it. */
  runOnce(): Promise<T> {
    if (!this.current) {
      const stops = this.stops;
      const round = this.round(() => this.stops !== stops);
      this.current = round.finally(() => (this.current = null));
    }
    return this.current;
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    if (!this.started) return;
    this.kicked = false;
    this.startUpkeep();
    let again = false;
    try {
      again = this.again(await this.runOnce());
    } catch (err) {
      this.logger.error(`${this.name} round failed: ${messageOf(err)}`);
    }
    // A kick between the round's end and this line has scheduled the next round already.
    if (this.started && !this.timer) this.schedule(again || this.kicked ? 0 : this.intervalMs);
  }

  private startUpkeep(): void {
    if (!this.hourly || this.clock.now() - this.lastUpkeep < HOUR_MS) return;
    this.lastUpkeep = this.clock.now();
    const stops = this.stops;
    this.upkeep = this.hourly(() => this.stops !== stops).catch((err: unknown) =>
      this.logger.warn(`${this.name} upkeep failed: ${messageOf(err)}`),
    );
  }
}

/**
 * When a batch of arrivals starts: once none arrived for `quietMs`, or `maxWaitMs` after the first one waiting (a
 * steady stream), so a burst goes in few large batches and a lone arrival at once.
 *
 * It reads `performance.now()`, not the module's clock: its times are timer arithmetic in `setTimeout`'s own time
 * (a few milliseconds between arrivals), and a test's stopped clock must not keep a batch from ever starting.
 */
export class QuietStart {
  private timer: NodeJS.Timeout | null = null;
  private since: number | null = null;
  private lastArrival = 0;
  private stopped = false;

  constructor(
    private readonly quietMs: number,
    private readonly maxWaitMs: number,
    private readonly start: () => void,
  ) {}

  /** Quiet counts from arrivals: ones queued during a pause (a long GC) make no quiet moment. */
  arriving(): void {
    this.lastArrival = performance.now();
  }

  /** From the first arrival waiting until its batch starts. */
  get waiting(): boolean {
    return this.since !== null;
  }

  /** An arrival waits for its batch. */
  wait(): void {
    if (this.stopped) return;
    const now = performance.now();
    if (this.since === null) this.since = now;
    this.arm(Math.min(now + this.quietMs, this.since + this.maxWaitMs));
  }

  /** Whether a batch was waiting (its start queued included); it no longer does (the caller starts it now). */
  flush(): boolean {
    const waiting = this.since !== null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.since = null;
    return waiting;
  }

  stop(): void {
    this.stopped = true;
    this.flush();
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // After this turn's I/O has been read (setImmediate runs after it): an arrival since then is not quiet.
        setImmediate(() => {
          const now = performance.now();
          const since = this.since;
          // Flushed meanwhile (the caller started the batch), stopped, or waiting again.
          if (this.timer || this.stopped || since === null) return;
          if (now - this.lastArrival < this.quietMs && now < since + this.maxWaitMs) {
            this.arm(Math.min(this.lastArrival + this.quietMs, since + this.maxWaitMs));
            return;
          }
          this.since = null;
          this.start();
        });
      },
      Math.max(0, at - performance.now()),
    );
    this.timer.unref();
  }
}
