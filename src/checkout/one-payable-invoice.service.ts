import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { emitSafely, InvoicePaymentsEvents, KEEP_ONE_PAYABLE, messageOf, raiseAlert } from '../core/events';
import type { DuplicateInvoiceCanceled } from '../core/events';
import { InvoiceStatusService } from '../core/invoice-status.service';
import { captured } from '../core/status-report';
import { statusIs } from '../domain/status-table';
import { GatewayStateConflictError } from '../gateway/errors';
import { GatewayClient } from '../gateway/gateway.client';
import type { Invoice } from '../gateway/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { InvoiceRecordStore, invoiceOrderFollows } from '../core/invoice-record.store';

/** Rounds of {@link OnePayableInvoice.enforce} while another caller keeps changing the order's open slot. */
const ENFORCE_ROUNDS = 3;

function isPayable(record: InvoiceRecord): boolean {
  return statusIs(record.statusCode, 'open');
}

/**
 * One payable invoice per order (docs/checkout.md): after a later attempt or a late invoice is linked, the order
 * keeps its paid invoice (else its open one) and every other payable invoice is canceled at the service.
 */
@Injectable()
export class OnePayableInvoice implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OnePayableInvoice.name);
  /** What {@link KEEP_ONE_PAYABLE} asked for, one order after another; awaited on shutdown. */
  private queued = Promise.resolve();
  private readonly onKeepOnePayable = (orderId: string) => this.queue(orderId);

  constructor(
    private readonly store: InvoiceRecordStore,
    private readonly status: InvoiceStatusService,
    private readonly events: EventEmitter2,
    private readonly gateway: GatewayClient,
  ) {}

  onModuleInit(): void {
    this.events.on(KEEP_ONE_PAYABLE, this.onKeepOnePayable);
  }

  async onModuleDestroy(): Promise<void> {
    this.events.off(KEEP_ONE_PAYABLE, this.onKeepOnePayable);
    await this.queued;
  }

  private queue(orderId: string): void {
    const enforced = this.queued.then(() => this.enforce(orderId));
    this.queued = enforced.catch((err: unknown) => {
      this.logger.error(`order ${orderId}: enforcing failed: ${messageOf(err)}`);
    });
  }

  /** At most one payable invoice for the order, and the order following its paid invoice (after any link). */
  async enforce(orderId: string): Promise<void> {
    for (let round = 0; round < ENFORCE_ROUNDS; round++) {
      if (await this.enforceOnce(orderId)) return;
    }
    this.logger.warn(`order ${orderId}: its open invoice kept changing; enforced again at the next check`);
  }

  /** Alerts an invoice paid beside the one the order follows (`recordId`: `null` when no record holds it). */
  alertPaidTwice(orderId: string, recordId: string | null, keeperId: string, message: string): void {
    const alert = { orderId, invoiceRecordId: recordId, relatedInvoiceRecordId: keeperId, message };
    raiseAlert(this.events, this.logger, { kind: 'duplicate_paid', ...alert });
  }

  /** `false` when the open slot moved under it and the pass must be made again. */
  private async enforceOnce(orderId: string): Promise<boolean> {
    const linked = await this.store.linkedOf(orderId);
    const paid = linked.filter(captured);
    const holder = await this.store.findOpen(orderId);
    const unmarked = linked.find((r) => isPayable(r) && r.duplicateOf === null);
    // Else a payable invoice marked as the duplicate of one no longer kept (closed, canceled) is the order's.
    const orphan = paid.length === 0 && !holder && !unmarked ? linked.find(isPayable) : undefined;
    if (orphan && !(await this.store.unmark(orphan))) return false;
    // Of two paid, the one the order follows (its payment is the one the host heard as the order's), else the first.
    const follows = invoiceOrderFollows(holder ? [holder, ...linked] : linked, orderId);
    const keeper = paid.find((r) => r.id === follows?.id) ?? paid[0] ?? holder ?? unmarked ?? orphan ?? null;
    if (!keeper) return true;
    for (const other of paid) {
      if (other.id === keeper.id) continue;
      // Whoever sets the mark raises the alert, so once per duplicate (a late invoice linked paid: its link).
      if (await this.store.setIfNull(other.id, 'duplicateOf', keeper.id)) this.alertPaid(other, keeper);
    }
    for (const other of linked) {
      if (other.id === keeper.id || !isPayable(other)) continue;
      if (!(await this.cancelDuplicate(other, keeper))) return false; // paid meanwhile: the order follows it
    }
    return this.holdOpenSlot(keeper, orderId);
  }

  /** The keeper holds the order's open slot, so no new invoice is created beside it; `false`: decide again. */
  private async holdOpenSlot(keeper: InvoiceRecord, orderId: string): Promise<boolean> {
    const holds = captured(keeper) || isPayable(keeper);
    if (keeper.openOrderId !== null || keeper.gatewayId === null || !holds) return true;
    const current = await this.store.get(keeper.id);
    if (current.openOrderId !== null || statusIs(current.statusCode, 'releasesOrder')) return true;
    const took = await this.store.setIfNull(keeper.id, 'openOrderId', orderId);
    // Not taken: a new attempt claimed the order meanwhile; an unpaid keeper is decided again.
    return took || captured(keeper);
  }

  /** `false` when the duplicate turned out paid and the keeper is not: the pass must be made again. */
  private async cancelDuplicate(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<boolean> {
    // Marked before the cancel, so the host hears its cancellation as a duplicate's, never as the order's.
    await this.store.setIfNull(duplicate.id, 'duplicateOf', keeper.id);
    let invoice: Invoice;
    try {
      invoice = await this.gateway.cancelInvoice({ id: duplicate.gatewayId ?? '' });
    } catch (err) {
      if (err instanceof GatewayStateConflictError) return this.afterRefusedCancel(duplicate, keeper);
      // Left payable and marked, on the reconciliation's schedule: its next check asks for this again.
      await this.store.backOnSchedule(duplicate.id);
      const failed = `canceling duplicate ${duplicate.gatewayId} failed: ${messageOf(err)}`;
      this.logger.error(`order ${duplicate.orderId}: ${failed}`);
      return true;
    }
    await this.report(duplicate, invoice);
    this.logger.warn(
      `order ${duplicate.orderId}: duplicate invoice ${duplicate.gatewayId} (record ${duplicate.id}) canceled; ` +
        `the order keeps invoice ${keeper.gatewayId ?? '(being created)'} (record ${keeper.id})`,
    );
    const event: DuplicateInvoiceCanceled = {
      orderId: duplicate.orderId,
      invoiceRecordId: duplicate.id,
      gatewayId: duplicate.gatewayId,
      keptInvoiceRecordId: keeper.id,
      keptGatewayId: keeper.gatewayId,
    };
    emitSafely(this.events, this.logger, InvoicePaymentsEvents.DuplicateCanceled, event);
    return true;
  }

  /**
   * The cancel was refused: the invoice moved (paid?) meanwhile. Paid while the keeper is not, the status path
   * unmarked it (it wins, the order follows it): `false`, so the keeper is chosen again.
   */
  private async afterRefusedCancel(duplicate: InvoiceRecord, keeper: InvoiceRecord): Promise<boolean> {
    const invoice = await this.gateway.findInvoiceById(duplicate.gatewayId ?? '').catch(() => null);
    if (!invoice) return true;
    await this.report(duplicate, invoice);
    const now = await this.store.get(duplicate.id);
    if (!captured(now)) return true;
    if (now.duplicateOf === null) return false;
    this.alertPaid(now, keeper);
    return true;
  }

  /** Alerts a paid invoice marked as the duplicate of `keeper`, the one the order follows: refund the duplicate. */
  alertPaid(duplicate: InvoiceRecord, keeper: InvoiceRecord): void {
    const message =
      `order ${duplicate.orderId}: invoices ${keeper.gatewayId} (record ${keeper.id}) and ${duplicate.gatewayId} ` +
      `(record ${duplicate.id}) were both paid; the order follows ${keeper.gatewayId}: refund ${duplicate.gatewayId}`;
    this.alertPaidTwice(duplicate.orderId, duplicate.id, keeper.id, message);
  }

  /** What the service answered of a duplicate, through the status path. */
  private async report(record: InvoiceRecord, invoice: Invoice): Promise<void> {
    await this.status.apply({ recordId: record.id, code: invoice.status.code, source: 'operation', invoice });
  }
}
