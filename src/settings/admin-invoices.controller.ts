import { Body, ConflictException, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { CheckoutValidationError } from '../core/invoice.errors';
import { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import { refundView } from '../refunds/refund.entity';
import { RefundService } from '../refunds/refund.service';
import { AdminApi } from './admin-api';
import { AdminInvoicesService, STATUS_VIEWS, toView, type AdminInvoiceView } from './admin-invoices.service';
import { adminValidationError, problemsOf } from './admin-problems';
import { ChangeDueDateDto, ListInvoicesQueryDto, MarkNotCreatedDto, RefundDto } from './admin.dto';

/** The admin API's invoices: the local records, their operations (due date, cancel, refund, recheck) and history. */
@AdminApi()
export class AdminInvoicesController {
  constructor(
    private readonly invoices: AdminInvoicesService,
    private readonly provider: InvoicePaymentProvider,
    private readonly creation: InvoiceCreationService,
    private readonly records: InvoiceRecordStore,
    private readonly refunds: RefundService,
  ) {}

  /** The statuses of the status table, for the page's filter and texts. */
  @Get('statuses')
  statuses() {
    return STATUS_VIEWS;
  }

  @Get('invoices')
  listInvoices(@Query() query: ListInvoicesQueryDto) {
    return this.invoices.list(query);
  }

  @Get('invoices/:id')
  getInvoice(@Param('id') id: string) {
    return this.reload(id);
  }

  @Post('invoices/:id/due-date')
  @HttpCode(200)
  async changeDueDate(@Param('id') id: string, @Body() body: ChangeDueDateDto) {
    try {
      await this.provider.changeDueDate({ data: { invoiceRecordId: id }, dueDate: body.dueDate });
    } catch (err) {
      // The provider names today in its message ("from YYYY-MM-DD on").
      const first = err instanceof CheckoutValidationError ? err.fields.dueDate?.[0] : undefined;
      const today = first && /\d{4}-\d{2}-\d{2}/.exec(first)?.[0];
      if (first && today) throw adminValidationError(problemsOf({ dueDate: [first] }, 'too_early', today));
      throw err;
    }
    return this.reload(id);
  }

  @Post('invoices/:id/cancel')
  @HttpCode(200)
  async cancel(@Param('id') id: string) {
    await this.provider.cancelPayment({ data: { invoiceRecordId: id } });
    return this.reload(id);
  }

  /** 200 with the `refund` when made; 202 while its lost answer is being confirmed (resend the `idempotencyKey`). */
  @Post('invoices/:id/refund')
  @HttpCode(200)
  async refund(
    @Param('id') id: string,
    @Body() body: RefundDto,
    @Res({ passthrough: true }) res: { status(code: number): unknown },
  ) {
    const record = await this.records.get(id);
    let outcome;
    try {
      outcome = await this.refunds.refund({
        invoiceRecordId: (await this.creation.resolveCreation(record)).id,
        amountCents: body.amountCents,
        requestedBy: `admin:${body.actor?.trim() ?? 'admin'}`,
        ...(body.idempotencyKey ? { idempotencyKey: body.idempotencyKey } : {}),
      });
    } catch (err) {
      if (err instanceof CheckoutValidationError && err.fields.amount) {
        const errors = { amountCents: err.fields.amount };
        const refundable = (await this.refunds.ledger(record)).refundableCents;
        throw adminValidationError(problemsOf(errors, 'too_large', refundable));
      }
      throw err;
    }
    if (outcome.refund.state !== 'succeeded') res.status(202);
    return { ...(await this.reload(id)), refund: refundView(outcome.refund) };
  }

  @Get('invoices/:id/refunds')
  async listRefunds(@Param('id') id: string) {
    const { refundableCents, refunds } = await this.refunds.ledger(await this.records.get(id));
    return { refundableCents, refunds: refunds.map(refundView) };
  }

  /** Settles an unsettled creation now by asking the service; 409 saying why when it still cannot. */
  @Post('invoices/:id/recheck')
  @HttpCode(200)
  async recheck(@Param('id') id: string) {
    await this.creation.resolveCreation(await this.records.get(id));
    return this.reload(id);
  }

  /** After someone checked the service's panel: the order is free; an invoice that shows up anyway is late. */
  @Post('invoices/:id/mark-not-created')
  @HttpCode(200)
  async markNotCreated(@Param('id') id: string, @Body() body: MarkNotCreatedDto) {
    const record = await this.records.get(id);
    if (record.creationState === 'created' || record.creationState === 'failed') {
      throw new ConflictException(`invoice record ${id} is ${record.creationState}: nothing to resolve`);
    }
    const after = await this.creation.markNotCreated(record, body.actor.trim(), body.note?.trim() || null);
    if (after.creationState !== 'failed') {
      throw new ConflictException(
        `invoice record ${id} became ${after.creationState} meanwhile: nothing to resolve`,
      );
    }
    return this.reload(id);
  }

  @Get('invoices/:id/history')
  async history(@Param('id') id: string) {
    await this.records.get(id);
    return this.invoices.history(id);
  }

  /** Refunds in flight count as spent in `refundableCents`. */
  private async reload(id: string): Promise<AdminInvoiceView> {
    const record = await this.records.get(id);
    const invoice = toView(record);
    if (invoice.refundableCents > 0) {
      invoice.refundableCents = (await this.refunds.ledger(record)).refundableCents;
    }
    return invoice;
  }
}
