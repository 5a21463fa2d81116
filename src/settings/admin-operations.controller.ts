import { Get, HttpCode, NotFoundException, Param, Post, Query } from '@nestjs/common';
import type { Page } from '../gateway/types';
import { AdminApi, AdminIdPipe } from './admin-api';
import { AdminInvoicesService } from './admin-invoices.service';
import {
  AdminOperationsService,
  type AdminInboxView,
  type AdminOutboxView,
} from './admin-operations.service';
import { AlertsQueryDto, InboxQueryDto, OutboxQueryDto } from './admin.dto';
import { InvoicePaymentsAlertsService, type AdminAlertView } from './alerts.service';

/** The admin API's Operations tab: the webhook inbox and tracking outbox (list, retry), the alerts. */
@AdminApi()
export class AdminOperationsController {
  constructor(
    private readonly operations: AdminOperationsService,
    private readonly invoices: AdminInvoicesService,
    private readonly alerts: InvoicePaymentsAlertsService,
  ) {}

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
}
