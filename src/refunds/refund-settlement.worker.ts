import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '../checkout/errors';
import { REFUNDS_OPTIONS } from './refund.options';
import type { ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundSettlementService } from './refund-settlement.service';
import { RefundStore } from './refund.store';

const BATCH = 20;

/** Reads back the `unknown` refunds at their `next_check_at`; off with `workers: false`. */
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

  /** One round now (tests, CLIs); resolves with how many rows were read back. */
  runOnce(): Promise<number> {
    this.round ??= this.settleDue().finally(() => (this.round = null));
    return this.round;
  }

  private async settleDue(): Promise<number> {
    let read = 0;
    try {
      for (const row of await this.refunds.takeDue(BATCH)) {
        await this.settlement
          .settle(row)
          .catch((err) => this.logger.error(`refund ${row.id}: ${errorMessage(err)}`));
        read += 1;
      }
    } catch (err) {
      this.logger.error(`refund settlement round failed: ${errorMessage(err)}`);
    }
    return read;
  }
}
