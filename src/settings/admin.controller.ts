import {
  All,
  Body,
  ConflictException,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { GatewayClient } from '../gateway/gateway.client';
import type { Page, ResendWebhookResult } from '../gateway/types';
import { CheckoutValidationError } from '../core/invoice.errors';
import { InvoicePaymentProvider } from '../checkout/invoice-payment.provider';
import { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { InvoiceRecordStore } from '../core/invoice-record.store';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { RefundService } from '../refunds/refund.service';
import { refundView, type RefundView } from '../refunds/refund.entity';
import { AdminInvoicesService, AdminInvoiceView, type KeysetPage } from './admin-invoices.service';
import {
  AdminOperationsService,
  type AdminHistoryView,
  type AdminInboxView,
  type AdminOutboxView,
} from './admin-operations.service';
import { AdminAlertView, InvoicePaymentsAlertsService } from './alerts.service';
import {
  AlertsQueryDto,
  ChangeDueDateDto,
  InboxQueryDto,
  ListInvoicesQueryDto,
  OutboxQueryDto,
  MarkNotCreatedDto,
  RefundDto,
  ResendWebhookDto,
  UpdateSettingsDto,
} from './admin.dto';
import { INVOICE_PAYMENTS_SECRET_BOX } from './constants';
import { CredentialCheckService, type CredentialCheckReport } from './credential-check.service';
import { SecretBox } from './secret-box';
import { checkSettingsUpdate, settingFields, SECRET_SETTINGS, type MaskedSettings } from './settings.mapping';
import { InvoicePaymentsSettingsService } from './settings.service';
import { AdminApi, AdminIdPipe, adminValidationError, problemsOf } from './admin-errors.filter';
import { GATEWAY_CLIENT_OPTIONS } from '../gateway/constants';
import type { GatewayClientOptions } from '../gateway/gateway.options';

/**
 * The admin API: settings (secrets masked), a credential check, the local invoices and their operations, the webhook
 * inbox and tracking outbox (list, retry), the alerts.
 */
@AdminApi()
export class InvoicePaymentsAdminController {
  constructor(
    private readonly settings: InvoicePaymentsSettingsService,
    private readonly credentials: CredentialCheckService,
    private readonly invoices: AdminInvoicesService,
    private readonly provider: InvoicePaymentProvider,
    private readonly client: GatewayClient,
    private readonly creation: InvoiceCreationService,
    private readonly records: InvoiceRecordStore,
    private readonly refunds: RefundService,
    private readonly operations: AdminOperationsService,
    private readonly alerts: InvoicePaymentsAlertsService,
    @Inject(INVOICE_PAYMENTS_SECRET_BOX) private readonly box: SecretBox,
    @Inject(GATEWAY_CLIENT_OPTIONS) private readonly gatewayOptions: GatewayClientOptions,
  ) {}

  @Get('settings')
  getSettings(): Promise<MaskedSettings> {
    return this.settings.getMasked();
  }

  @Get('settings/fields')
  getSettingFields(): ReturnType<typeof settingFields> {
    return settingFields();
  }

  @Put('settings')
  async putSettings(@Body() body: UpdateSettingsDto): Promise<MaskedSettings> {
    const secrets = SECRET_SETTINGS.filter((name) => typeof body[name] === 'string');
    if (secrets.length > 0 && !this.box.canEncrypt) {
      const why =
        'cannot be saved: no encryption key is configured (admin.encryption or INVOICE_PAYMENTS_ENCRYPTION_KEYS)';
      const errors = Object.fromEntries(secrets.map((name) => [name, [why]]));
      throw adminValidationError(problemsOf(errors, 'no_encryption_key'));
    }
    this.settings.invalidate(); // judged against what is saved now
    const problems = await checkSettingsUpdate(
      body,
      await this.settings.getEffective(),
      this.gatewayOptions.lookup,
    );
    if (Object.keys(problems).length > 0) throw adminValidationError(problemsOf(problems));
    await this.settings.update(body);
    return this.settings.getMasked();
  }

  @Post('settings/rotate-secrets')
  @HttpCode(200)
  rotateSecrets(): Promise<{ currentKeyId: string | null; rotated: number; remaining: number }> {
    return this.settings.rotateSecrets();
  }

  @Post('credentials/check')
  @HttpCode(200)
  checkCredentials(): Promise<CredentialCheckReport> {
    return this.credentials.check();
  }

  @Get('invoices')
  listInvoices(@Query() query: ListInvoicesQueryDto): Promise<KeysetPage<AdminInvoiceView>> {
    return this.invoices.list(query);
  }

  @Get('invoices/:id')
  getInvoice(@Param('id', AdminIdPipe) id: string): Promise<AdminInvoiceView> {
    return this.reload(id);
  }

  @Post('invoices/:id/due-date')
  @HttpCode(200)
  async changeDueDate(
    @Param('id', AdminIdPipe) id: string,
    @Body() body: ChangeDueDateDto,
  ): Promise<AdminInvoiceView> {
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
  async cancel(@Param('id', AdminIdPipe) id: string): Promise<AdminInvoiceView> {
    await this.provider.cancelPayment({ data: { invoiceRecordId: id } });
    return this.reload(id);
  }

  /** 200 with the `refund` when made; 202 while its lost answer is being confirmed (resend the `idempotencyKey`). */
  @Post('invoices/:id/refund')
  @HttpCode(200)
  async refund(
    @Param('id', AdminIdPipe) id: string,
    @Body() body: RefundDto,
    @Res({ passthrough: true }) res: { status(code: number): unknown },
  ): Promise<AdminInvoiceView & { refund: RefundView }> {
    const record = await this.record(id);
    let outcome;
    try {
      outcome = await this.refunds.refund({
        invoiceRecordId: (await this.creation.settle(record)).id,
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
  async listRefunds(
    @Param('id', AdminIdPipe) id: string,
  ): Promise<{ refundableCents: number; refunds: RefundView[] }> {
    const { refundableCents, refunds } = await this.refunds.ledger(await this.record(id));
    return { refundableCents, refunds: refunds.map(refundView) };
  }

  /** Settles an unsettled creation now by asking the service; 409 saying why when it still cannot. */
  @Post('invoices/:id/recheck')
  @HttpCode(200)
  async recheck(@Param('id', AdminIdPipe) id: string): Promise<AdminInvoiceView> {
    await this.creation.settle(await this.record(id));
    return this.reload(id);
  }

  /** After someone checked the service's panel: the order is free; an invoice that shows up anyway is late. */
  @Post('invoices/:id/mark-not-created')
  @HttpCode(200)
  async markNotCreated(
    @Param('id', AdminIdPipe) id: string,
    @Body() body: MarkNotCreatedDto,
  ): Promise<AdminInvoiceView> {
    const record = await this.record(id);
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

  /** Spec §4.8; refused in production mode. */
  @Post('webhooks/resend')
  @HttpCode(200)
  async resendWebhook(@Body() body: ResendWebhookDto): Promise<ResendWebhookResult> {
    const { mode } = await this.settings.getEffective();
    if (mode === 'production') {
      throw new ConflictException(
        'resend webhook is refused in production mode: the service blocklists production callers (spec §6.6)',
      );
    }
    return this.client.resendWebhook({
      url: body.url,
      events: body.events ?? 'invoice.update',
      webhook: body.webhook ?? 'default',
    });
  }

  @Get('invoices/:id/history')
  async history(@Param('id', AdminIdPipe) id: string): Promise<AdminHistoryView[]> {
    if (!(await this.invoices.find(id))) throw new NotFoundException(`No invoice record ${id}`);
    return this.operations.history(id);
  }

  @Get('webhooks/inbox')
  listInbox(@Query() query: InboxQueryDto): Promise<Page<AdminInboxView>> {
    return this.operations.listInbox(query);
  }

  @Post('webhooks/inbox/:id/retry')
  @HttpCode(200)
  retryInbox(@Param('id', AdminIdPipe) id: string): Promise<AdminInboxView> {
    return this.operations.retryInbox(id);
  }

  @Get('tracking/outbox')
  async listOutbox(
    @Query() query: OutboxQueryDto,
  ): Promise<Page<AdminOutboxView & { displayId: string | null }>> {
    return this.invoices.withDisplayIds(await this.operations.listOutbox(query));
  }

  @Post('tracking/outbox/:id/retry')
  @HttpCode(200)
  retryOutbox(@Param('id', AdminIdPipe) id: string): Promise<AdminOutboxView> {
    return this.operations.retryOutbox(id);
  }

  @Get('alerts')
  async listAlerts(
    @Query() query: AlertsQueryDto,
  ): Promise<Page<AdminAlertView & { displayId: string | null }>> {
    return this.invoices.withDisplayIds(await this.alerts.list(query));
  }

  @Post('alerts/:id/acknowledge')
  @HttpCode(200)
  async acknowledge(@Param('id', AdminIdPipe) id: string): Promise<AdminAlertView> {
    const alert = await this.alerts.acknowledge(id);
    if (!alert) throw new NotFoundException(`No alert ${id}`);
    return alert;
  }

  /** Every other admin path: guarded, so probing cannot list the routes; a 404 that does not repeat the path. */
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }

  private async record(id: string): Promise<InvoiceRecord> {
    const record = await this.records.get(id).catch(() => null);
    if (!record) throw new NotFoundException(`No invoice record ${id}`);
    return record;
  }

  /** Refunds in flight count as spent in `refundableCents`. */
  private async reload(id: string): Promise<AdminInvoiceView> {
    const invoice = await this.invoices.find(id);
    if (!invoice) throw new NotFoundException(`No invoice record ${id}`);
    if (invoice.refundableCents > 0) {
      const record = await this.records.get(id);
      invoice.refundableCents = (await this.refunds.ledger(record)).refundableCents;
    }
    return invoice;
  }
}
