import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { REFUNDS_OPTIONS } from './refund.options';
import { ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundSettlementService, why } from './refund-settlement.service';
import { RefundStore } from './refund.store';

/** Refunds read back per round. */
const BATCH = 20;
/** How long a taken row is left to this worker before another may read it back. */
const TAKE_MS = 60_000;

/**
 * Reads back, on a schedule, the refunds whose outcome is unknown (each at its `next_check_at`, backing off from
 * `refunds.recheckMs` to `refunds.maxRecheckMs`), until the service's `refunds.total` settles them. Off when the
 * module's workers are off (`workers: false`); a refund of the invoice asked for meanwhile reads it back too.
 * Two app instances never read one row back at once: a row is taken by moving its next check forward, only if
 * nobody did first.
 */
@Injectable()
export class RefundSettlementWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('InvoicePayments:Refunds');
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<number> | null = null;

  constructor(
    private readonly refunds: RefundStore,
    private readonly settlement: RefundSettlementService,
    @Inject(REFUNDS_OPTIONS) private readonly options: ResolvedRefundsOptions,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.autoStartWorker) return;
    this.timer = setInterval(() => void this.runOnce(), this.options.pollIntervalMs);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round?.catch(() => undefined);
  }

  /** One round now (tests, CLIs): settles what is due; resolves with how many rows were read back. */
  runOnce(): Promise<number> {
    this.round ??= this.settleDue().finally(() => (this.round = null));
    return this.round;
  }

  private async settleDue(): Promise<number> {
    let read = 0;
    try {
      const now = new Date();
      for (const row of await this.refunds.due(now, BATCH)) {
        if (!(await this.refunds.takeDue(row, new Date(now.getTime() + TAKE_MS)))) continue;
        await this.settlement.settle(row).catch((err) => this.logger.error(`refund ${row.id}: ${why(err)}`));
        read += 1;
      }
    } catch (err) {
      this.logger.error(`refund settlement round failed: ${why(err)}`);
    }
    return read;
  }
}
