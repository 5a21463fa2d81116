import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { TRACKABLE_CODES } from '../gateway/status';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { OrderNotPaidError, ShipmentValidationError } from './errors';
import { validateShipment } from './shipping-options';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingWorker } from './tracking.worker';
import type { RecordShipmentInput, RecordShipmentResult, ValidShipment } from './types';

/**
 * Records shipped orders' tracking codes in the outbox; the {@link TrackingWorker} posts them to the service.
 * The shipment event listener calls it; hosts without events call {@link TrackingService.recordShipment} directly.
 */
@Injectable()
export class TrackingService {
  private readonly logger = new Logger('InvoicePayments:Shipping');

  constructor(
    @InjectRepository(TrackingOutbox) private readonly outbox: Repository<TrackingOutbox>,
    @InjectRepository(InvoiceRecord) private readonly invoices: Repository<InvoiceRecord>,
    private readonly worker: TrackingWorker,
  ) {}

  /**
   * Queues an order's tracking code for the service. Returns once the code is stored: the worker posts it, retrying
   * through outages, and emits `TrackingPosted` or `TrackingFailed`.
   *
   * - The same code for the same order is queued once (`outcome: 'duplicate'`); carrier and URL of a duplicate are
   *   ignored, as the service ignores a repeated code (A9).
   * - A different code is queued and replaces the order's older codes still waiting, so a stale code is never
   *   posted after a newer one.
   *
   * @throws ShipmentValidationError naming the bad field; nothing is stored.
   * @throws OrderNotPaidError when the order has no invoice in status 4, 5 or 8; nothing is stored or sent.
   */
  async recordShipment(input: RecordShipmentInput): Promise<RecordShipmentResult> {
    let shipment: ValidShipment;
    let invoice: InvoiceRecord;
    try {
      shipment = validateShipment(input);
      invoice = await this.findPaidInvoice(shipment.orderId);
    } catch (err) {
      if (err instanceof ShipmentValidationError || err instanceof OrderNotPaidError) {
        this.logger.warn(`Tracking code refused: ${err.message}`);
      }
      throw err;
    }
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

  /** The order's invoice a tracking code may be attached to: the latest attempt in status 4, 5 or 8. */
  private async findPaidInvoice(orderId: string): Promise<InvoiceRecord> {
    const invoices = await this.invoices.find({ where: { orderId }, order: { attempt: 'DESC' } });
    if (invoices.length === 0) throw new OrderNotPaidError(orderId, 'no_invoice', null);
    const paid = invoices.find(
      (i) => i.statusCode !== null && TRACKABLE_CODES.includes(i.statusCode) && i.gatewayInvoiceId !== null,
    );
    if (!paid) throw new OrderNotPaidError(orderId, 'not_paid', invoices[0].statusCode);
    return paid;
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

    const now = new Date();
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

    let id: string;
    let outcome: RecordShipmentResult['outcome'];
    if (existing) {
      // Failed before, or an older code the host switched back to: queue it again as the order's latest.
      await this.outbox.update({ id: existing.id }, fields);
      id = existing.id;
      outcome = 'requeued';
    } else {
      id = randomUUID();
      try {
        await this.outbox.insert({
          id,
          ...base,
          ...fields,
          lockedUntil: null,
          lockedBy: null,
          sentAt: null,
          createdAt: now,
        });
      } catch (err) {
        // The same event handled twice at once: the other call stored it.
        if (!isUniqueViolation(err)) throw err;
        const winner = await this.outbox.findOneByOrFail({ orderId, code });
        return { ...base, outboxId: winner.id, outcome: 'duplicate' };
      }
      outcome = 'queued';
    }
    await this.supersedeOlder(orderId, id, recordedAt, now);
    return { ...base, outboxId: id, outcome };
  }

  /**
   * Older codes of the order still waiting are never posted. Rows a worker holds right now are left to it: it
   * checks for a newer code before posting, and the newer row waits until that claim ends.
   */
  private async supersedeOlder(orderId: string, keepId: string, recordedAt: Date, now: Date): Promise<void> {
    const iso = now.toISOString();
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
      .andWhere('(locked_until IS NULL OR locked_until <= :now)', { now: iso })
      .execute();
  }
}

/** Unique-constraint violation, PostgreSQL (23505) or SQLite. */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError: unknown = err.driverError;
  const code =
    typeof driverError === 'object' && driverError !== null
      ? (driverError as { code?: unknown }).code
      : undefined;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
