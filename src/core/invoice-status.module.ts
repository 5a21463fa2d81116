import { Global, Module } from '@nestjs/common';
import { InvoiceStatusService } from './invoice-status.service';
import { StatusChangeDispatcher } from './status-dispatcher.service';

/**
 * The status path and its notification outbox, global so every capability shares one dispatcher. Reads
 * `ORDER_PAYMENT_PORT` and `STATUS_DISPATCH_OPTIONS` when provided globally (without a port, changes go to the event
 * bus only).
 */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService],
  exports: [StatusChangeDispatcher, InvoiceStatusService],
})
export class InvoiceStatusModule {}
