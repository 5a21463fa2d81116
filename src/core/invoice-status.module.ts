import { Global, Module } from '@nestjs/common';
import { InvoiceStatusService } from './invoice-status.service';
import { StatusChangeDispatcher } from './status-dispatcher.service';

/** The status path and its outbox, global so every capability shares one dispatcher. */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService],
  exports: [StatusChangeDispatcher, InvoiceStatusService],
})
export class InvoiceStatusModule {}
