import { Global, Module } from '@nestjs/common';
import { InvoiceIdentity } from './invoice-identity';
import { InvoiceStatusService } from './invoice-status.service';
import { StatusChangeDispatcher } from './status-dispatcher.service';

/** The status path, its outbox and the identity check, global so every capability shares one of each. */
@Global()
@Module({
  providers: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
  exports: [StatusChangeDispatcher, InvoiceStatusService, InvoiceIdentity],
})
export class InvoiceStatusModule {}
