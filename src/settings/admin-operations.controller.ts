import { Get, HttpCode, NotFoundException, Param, Post, Query } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, Matches } from 'class-validator';
import { PageQueryDto } from './admin.dto';
import type { Page } from '../gateway/types';
import { AdminInvoicesService } from './admin-invoices.service';
import { AdminOperationsService } from './admin-operations.service';
import type { AdminHistoryView, AdminInboxView, AdminOutboxView } from './admin-operations.views';
import { AdminAlertView, InvoicePaymentsAlertsService } from './alerts.service';
import { AdminApi, AdminIdPipe } from './admin-errors.filter';

/** Query of `GET /webhooks/inbox`: without `state`, the entries that need attention (pending and dead). */
export class InboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['pending', 'dead', 'processed', 'ignored'], {
    message: 'state must be pending, dead, processed or ignored',
  })
  state?: 'pending' | 'dead' | 'processed' | 'ignored';
}

/** Query of `GET /tracking/outbox`: without `status`, the codes waiting or failed. */
export class OutboxQueryDto extends PageQueryDto {
  @IsOptional()
  @IsIn(['pending', 'sent', 'failed', 'superseded'], {
    message: 'status must be pending, sent, failed or superseded',
  })
  status?: 'pending' | 'sent' | 'failed' | 'superseded';
}

/** Query of `GET /alerts`. */
export class AlertsQueryDto extends PageQueryDto {
  /** `true`: not acknowledged yet; `false`: acknowledged; absent: all. */
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'open must be true or false' })
  open?: boolean;

  @IsOptional()
  @Matches(/^[a-z_]{1,32}$/, { message: 'kind must be an alert kind such as amount_mismatch' })
  kind?: string;
}

/**
 * The admin API's operations: an invoice's status history, the webhook inbox and the tracking outbox (list and
 * retry), and the alerts (list and acknowledge).
 */
@AdminApi()
export class InvoicePaymentsAdminOperationsController {
  constructor(
    private readonly operations: AdminOperationsService,
    private readonly invoices: AdminInvoicesService,
    private readonly alerts: InvoicePaymentsAlertsService,
  ) {}

  /** Every status the service reported for the invoice, applied or refused, oldest first. */
  @Get('invoices/:id/history')
  async history(@Param('id', AdminIdPipe) id: string): Promise<AdminHistoryView[]> {
    if (!(await this.invoices.find(id))) throw new NotFoundException(`No invoice record ${id}`);
    return this.operations.history(id);
  }

  /** Webhook deliveries: by default those pending or dead-lettered, with the reason. */
  @Get('webhooks/inbox')
  listInbox(@Query() query: InboxQueryDto): Promise<Page<AdminInboxView>> {
    return this.operations.listInbox(query);
  }

  /** Processes a dead-lettered (or waiting) delivery again now. */
  @Post('webhooks/inbox/:id/retry')
  @HttpCode(200)
  retryInbox(@Param('id', AdminIdPipe) id: string): Promise<AdminInboxView> {
    return this.operations.retryInbox(id);
  }

  /** Tracking codes: by default those waiting or failed. */
  @Get('tracking/outbox')
  async listOutbox(
    @Query() query: OutboxQueryDto,
  ): Promise<Page<AdminOutboxView & { displayId: string | null }>> {
    return this.invoices.withDisplayIds(await this.operations.listOutbox(query));
  }

  /** Posts a failed (or waiting) tracking code again now. */
  @Post('tracking/outbox/:id/retry')
  @HttpCode(200)
  retryOutbox(@Param('id', AdminIdPipe) id: string): Promise<AdminOutboxView> {
    return this.operations.retryOutbox(id);
  }

  /** Alerts the module raised, newest first (`open=true`: not acknowledged yet). */
  @Get('alerts')
  async listAlerts(
    @Query() query: AlertsQueryDto,
  ): Promise<Page<AdminAlertView & { displayId: string | null }>> {
    return this.invoices.withDisplayIds(await this.alerts.list(query));
  }

  /** Marks an alert handled. */
  @Post('alerts/:id/acknowledge')
  @HttpCode(200)
  async acknowledge(@Param('id', AdminIdPipe) id: string): Promise<AdminAlertView> {
    const alert = await this.alerts.acknowledge(id);
    if (!alert) throw new NotFoundException(`No alert ${id}`);
    return alert;
  }
}
