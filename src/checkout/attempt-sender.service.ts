import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../domain/clock';
import { creationMove } from '../core/creation-move';
import { GatewayOutcomeUnknownError, GatewayValidationError, isGatewayError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { CreationOutcomes } from './creation-outcomes.service';
import { InvoiceCreationFailedError } from '../core/invoice.errors';
import { withReferrer } from '../core/attempt-claim';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import type { MappedInvoice } from '../core/checkout.types';

/**
 * An attempt's one create request: `settles_at` stored before it leaves, the answer recorded, a failure sorted into
 * "not created" (the order free again) or an unknown outcome (looked up, never sent again).
 */
@Injectable()
export class AttemptSender {
  private readonly logger = new Logger(AttemptSender.name);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly gateway: GatewayClient,
    private readonly outcomes: CreationOutcomes,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * `null` when the attempt was closed as "not created", or moved before its request left (the order is decided
   * again). The answer is recorded on the record as stored, so its guarded status write lands.
   */
  async send(
    claimed: InvoiceRecord,
    mapped: MappedInvoice,
    deadline: number,
    options: ResolvedCheckoutOptions,
  ): Promise<InvoiceRecord | null> {
    // Stored before the request leaves: until then it could land. The claim's headroom usually covers it.
    const landsUntil = this.landsUntil(options);
    let record: InvoiceRecord | null = claimed;
    if (landsUntil > (claimed.settlesAt?.getTime() ?? 0)) {
      const later = creationMove(['pending'], 'pending', { settlesAt: new Date(landsUntil) });
      record = await this.store.moveAsRead(claimed, later);
      if (!record) return null;
    }
    let invoice: Invoice;
    try {
      invoice = await this.gateway.createInvoice(withReferrer(mapped.params, record.referrer));
    } catch (err) {
      if (err instanceof GatewayOutcomeUnknownError) {
        this.logger.warn(`order ${record.orderId}: creation outcome unknown (${err.reason}); looking it up`);
        return this.lookUpLost(record, deadline, options);
      }
      if (isGatewayError(err)) {
        // The service refused (or provably never got) the request: nothing exists there, the order is free again.
        await this.store.closeNotCreated(record.id, err.message, ['pending', 'unknown']);
        if (err instanceof GatewayValidationError) {
          throw new InvoiceCreationFailedError(record.orderId, err.message, err.fields);
        }
        throw err;
      }
      // Not a gateway answer at all: the request may have left, so the next caller looks it up first.
      await this.store.transition(
        record.id,
        creationMove(['pending'], 'unknown', { unknownSince: this.clock.date() }),
      );
      throw err;
    }
    return this.outcomes.recordCreated(record, invoice);
  }

  /** The create request's answer was lost: still `pending`, so this caller looks it up and the others wait. */
  private async lookUpLost(record: InvoiceRecord, deadline: number, options: ResolvedCheckoutOptions) {
    const unknown = creationMove(['pending'], 'pending', { unknownSince: this.clock.date() });
    const moved = await this.store.moveAsRead(record, unknown);
    // Moved meanwhile: looked up as it was, with the time its outcome became unknown.
    const looked = moved ?? { ...record, ...unknown.patch };
    return this.outcomes.resolveUnknown(looked, deadline, options);
  }

  /** Until when a create request sent now could still land at the service. */
  landsUntil(options: ResolvedCheckoutOptions): number {
    return this.clock.now() + this.gateway.createTimeoutMs + options.lateCreationMarginMs;
  }
}
