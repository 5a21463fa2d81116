import { Global, Module } from '@nestjs/common';
import { InvoiceStatusService } from './invoice-status.service';
import { StatusChangeDispatcher } from './status-dispatcher.service';

/**
 * The one status-change path and its notification outbox, shared by checkout, webhooks and the sweep. Global, so
 * every capability injects the same {@link InvoiceStatusService} (one dispatcher per app instance). It reads the
 * host's `ORDER_PAYMENT_PORT` and `STATUS_DISPATCH_OPTIONS` when provided in a global scope (the root module does);
 * without a port, status changes go to the event bus only. Needs TypeORM's default DataSource and
 * `EventEmitterModule.forRoot()`.
 */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService],
  exports: [StatusChangeDispatcher, InvoiceStatusService],
})
export class InvoiceStatusModule {}
