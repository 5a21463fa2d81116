import { Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AdminApi } from './admin-api';
import { AdminInvoicesService } from './admin-invoices.service';
import { AdminOperationsService } from './admin-operations.service';
import { AlertsQueryDto, InboxQueryDto, OutboxQueryDto } from './admin.dto';

/** The admin API's Operations tab: the webhook inbox and tracking outbox (list, retry), the alerts. */
@AdminApi()
export class AdminOperationsController {
  constructor(
    private readonly operations: AdminOperationsService,
    private readonly invoices: AdminInvoicesService,
  ) {}

  @Get('webhooks/inbox')
  listInbox(@Query() query: InboxQueryDto) {
    return this.operations.listInbox(query);
  }

  @Post('webhooks/inbox/:id/retry')
  @HttpCode(200)
  retryInbox(@Param('id') id: string) {
    return this.operations.retryInbox(id);
  }

  @Get('tracking/outbox')
  async listOutbox(@Query() query: OutboxQueryDto) {
    return this.invoices.withDisplayIds(await this.operations.listOutbox(query));
  }

  @Post('tracking/outbox/:id/retry')
  @HttpCode(200)
  retryOutbox(@Param('id') id: string) {
    return this.operations.retryOutbox(id);
  }

  @Get('alerts')
  async listAlerts(@Query() query: AlertsQueryDto) {
    return this.invoices.withDisplayIds(await this.operations.listAlerts(query));
  }

  @Post('alerts/:id/acknowledge')
  @HttpCode(200)
  acknowledge(@Param('id') id: string) {
    return this.operations.acknowledgeAlert(id);
  }
}
