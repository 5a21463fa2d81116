import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { errorMessage } from '../checkout/errors';
import { Poller } from '../core/queue/poller';
import { REFUNDS_OPTIONS } from './refund.options';
import type { ResolvedRefundsOptions } from '../options/refunds.options';
import { RefundSettlementService } from './refund-settlement.service';
import { RefundStore } from './refund.store';

const BATCH = 20;

/** Reads back the `unknown` refunds at their `next_check_at`; off with `workers: false`. */
@Injectable()
export class RefundSettlementWorker extends Poller<number> implements OnApplicationBootstrap {
  constructor(
    private readonly refunds: RefundStore,
    private readonly settlement: RefundSettlementService,
    @Inject(REFUNDS_OPTIONS) private readonly options: ResolvedRefundsOptions,
  ) {
    super('refund settlement', new Logger('InvoicePayments:Refunds'), options.pollIntervalMs);
  }

  onApplicationBootstrap(): void {
    if (this.options.autoStartWorker) this.start();
  }

  /** Resolves with how many rows were read back; a failed round is logged, never thrown. */
  protected async round(): Promise<number> {
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
