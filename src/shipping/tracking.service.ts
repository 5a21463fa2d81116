import { randomUUID } from 'node:crypto';
import { messageOf } from '../core/events';
import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { invoiceOrderFollows, isUniqueViolation } from '../core/invoice-record.store';
import { CLOCK, type Clock } from '../domain/clock';
import { statusIs } from '../domain/status-table';
import { textProblem } from '../domain/text-and-days';
import { isHttpUrl } from '../gateway/dto/validators';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { OrderNotPaidError, ShipmentValidationError } from '../domain/shipping.errors';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingWorker } from './tracking.worker';
import type { RecordShipmentInput, RecordShipmentResult, ValidShipment } from '../domain/shipping.types';
import { SHIPPING_OPTIONS, type ResolvedShippingOptions } from '../options/shipping.options';

/**
 * Records shipped orders' tracking codes in the outbox, from the host's shipment event (`shipping.shipmentEvent`) or
 * a direct {@link TrackingService.recordShipment}; the {@link TrackingWorker} posts them. See docs/shipping.md.
 */
@Injectable()
export class TrackingService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('InvoicePayments:Shipping');
  private readonly listener = (payload: unknown): Promise<void> => this.onShipment(payload);

  constructor(
    @InjectRepository(TrackingOutbox) private readonly outbox: Repository<TrackingOutbox>,
    @InjectRepository(InvoiceRecord) private readonly invoices: Repository<InvoiceRecord>,
    private readonly worker: TrackingWorker,
    private readonly events: EventEmitter2,
    @Inject(SHIPPING_OPTIONS) private readonly options: ResolvedShippingOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Registered at start-up rather than with `@OnEvent`, whose name is fixed at compile time: the host names it. */
  onModuleInit(): void {
    if (this.options.shipmentEvent !== false) this.events.on(this.options.shipmentEvent, this.listener);
  }

  onModuleDestroy(): void {
    if (this.options.shipmentEvent !== false) this.events.off(this.options.shipmentEvent, this.listener);
  }

  /**
   * Queues an order's tracking code for the worker; a new code supersedes the order's older codes still waiting.
   * @throws ShipmentValidationError naming the bad field, or OrderNotPaidError (the invoice the order follows is not
   * in status 4, 5 or 8).
   */
  async recordShipment(input: RecordShipmentInput): Promise<RecordShipmentResult> {
    const [shipment, invoice] = await this.accept(input).catch((err: unknown) => {
      if (isRefusal(err)) this.logger.warn(`Tracking code refused: ${err.message}`);
      throw err;
    });
    const result = await this.store(shipment, invoice);
    if (result.outcome !== 'duplicate') {
      this.logger.log(`Tracking code ${result.code} for order ${result.orderId} ${result.outcome}`);
      this.worker.kick();
    }
    return result;
  }

  /** The order's outbox rows, newest first: what was sent, what waits, what failed. */
  async listForOrder(orderId: string): Promise<TrackingOutbox[]> {
    return this.outbox.find({ where: { orderId }, order: { recordedAt: 'DESC' } });
  }

  /** Never throws into the host's `emit`: refusals and failures are logged (with order and code, to record again). */
  private async onShipment(payload: unknown): Promise<void> {
    let shipment: RecordShipmentInput;
    try {
      shipment = this.options.mapShipmentEvent(payload);
    } catch (err) {
      this.logger.warn(`Shipment event ignored, its payload is unusable: ${messageOf(err)}`);
      return;
    }
    try {
      await this.recordShipment(shipment);
    } catch (err) {
      if (isRefusal(err)) return;
      this.logger.error(
        `Shipment event for order ${String(shipment.orderId)} (tracking code ${String(shipment.trackingCode)}) ` +
          `was not recorded: ${messageOf(err)}`,
      );
    }
  }

  /**
   * The valid shipment and the invoice its code is attached to: the one the order follows, when it is paid. Not a
   * paid duplicate (its money goes back) nor one paid after its cancel while another attempt holds the order.
   */
  private async accept(input: RecordShipmentInput): Promise<[ValidShipment, InvoiceRecord]> {
    const shipment = validateShipment(input);
    const orderId = shipment.orderId;
    const invoices = await this.invoices.find({ where: { orderId }, order: { attempt: 'DESC' } });
    if (invoices.length === 0) throw new OrderNotPaidError(orderId, 'no_invoice', null);
    const follows = invoiceOrderFollows(invoices, orderId);
    if (!follows || !statusIs(follows.statusCode, 'trackable') || follows.gatewayInvoiceId === null) {
      throw new OrderNotPaidError(orderId, 'not_paid', (follows ?? invoices[0]).statusCode);
    }
    return [shipment, follows];
  }

  private async store(shipment: ValidShipment, invoice: InvoiceRecord): Promise<RecordShipmentResult> {
    const { orderId, trackingCode: code } = shipment;
    const rows = await this.listForOrder(orderId);
    const latest = rows[0];
    const existing = rows.find((r) => r.code === code);
    const base = { orderId, code };
    if (existing && existing === latest && (existing.status === 'pending' || existing.status === 'sent')) {
      return { ...base, outboxId: existing.id, outcome: 'duplicate' };
    }

    const now = this.clock.date();
    // Strictly after the order's latest code, even within one millisecond: the latest recorded code must win.
    const recordedAt = latest && latest.recordedAt >= now ? new Date(latest.recordedAt.getTime() + 1) : now;
    const fields = {
      carrier: shipment.carrier,
      url: shipment.trackingUrl,
      invoiceRecordId: invoice.id,
      gatewayInvoiceId: invoice.gatewayInvoiceId as string,
      status: 'pending' as const,
      attempts: 0,
      nextAttemptAt: now,
      lastError: null,
      recordedAt,
      updatedAt: now,
    };

    const id = existing?.id ?? randomUUID();
    if (existing) await this.outbox.update({ id }, fields);
    else {
      const unclaimed = { lockedUntil: null, lockedBy: null, sentAt: null, createdAt: now };
      try {
        await this.outbox.insert({ id, ...base, ...fields, ...unclaimed });
      } catch (err) {
        // The same event handled twice at once: the other call stored it.
        if (!isUniqueViolation(err)) throw err;
        return { ...base, outboxId: (await this.outbox.findOneByOrFail(base)).id, outcome: 'duplicate' };
      }
    }
    await this.supersedeOlder(orderId, id, recordedAt, now);
    return { ...base, outboxId: id, outcome: existing ? 'requeued' : 'queued' };
  }

  /** Rows a worker holds are left to it: it checks for a newer code before posting. */
  private async supersedeOlder(orderId: string, keepId: string, recordedAt: Date, now: Date): Promise<void> {
    await this.outbox
      .createQueryBuilder()
      .update(TrackingOutbox)
      .set({ status: 'superseded', updatedAt: now })
      .where('order_id = :orderId AND id <> :keepId AND status = :pending', {
        orderId,
        keepId,
        pending: 'pending',
      })
      .andWhere('recorded_at < :recordedAt', { recordedAt: recordedAt.toISOString() })
      .andWhere('(locked_until IS NULL OR locked_until <= :now)', { now: now.toISOString() })
      .execute();
  }
}

function isRefusal(err: unknown): err is ShipmentValidationError | OrderNotPaidError {
  return err instanceof ShipmentValidationError || err instanceof OrderNotPaidError;
}

/**
 * Checks a shipment and returns it trimmed; throws {@link ShipmentValidationError} naming the first bad field.
 * Codes are compared as given (after trimming): the module does not guess that `br1` and `BR1` are one code.
 */
export function validateShipment(input: unknown): ValidShipment {
  if (typeof input !== 'object' || input === null) {
    throw new ShipmentValidationError('shipment', 'must be an object');
  }
  const i = input as Record<string, unknown>;
  const orderId = requiredText('orderId', i.orderId, 128); // as `InvoiceRecord.orderId`;
  const trackingCode = requiredText('trackingCode', i.trackingCode, 64); // Correios: 13;
  if (/\s/.test(trackingCode)) throw new ShipmentValidationError('trackingCode', 'must not contain spaces');
  const carrier = optionalText('carrier', i.carrier, 64);
  const trackingUrl = optionalText('trackingUrl', i.trackingUrl, 2048);
  if (trackingUrl !== null && !isHttpUrl(trackingUrl)) {
    throw new ShipmentValidationError('trackingUrl', 'must be an http or https URL');
  }
  return { orderId, trackingCode, carrier, trackingUrl };
}

function requiredText(field: string, value: unknown, max: number): string {
  if (value === undefined || value === null) throw new ShipmentValidationError(field, 'is required');
  const text = optionalText(field, value, max);
  if (text === null) throw new ShipmentValidationError(field, 'must not be empty');
  return text;
}

function optionalText(field: string, value: unknown, max: number): string | null {
  const problem = textProblem(value, { max });
  if (problem) throw new ShipmentValidationError(field, problem);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}
