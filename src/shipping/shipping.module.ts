import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { resolveShippingOptions } from '../options/shipping.options';
import { section } from '../options/resolve';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SHIPPING_OPTIONS } from './constants';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingService } from './tracking.service';
import { TrackingWorker } from './tracking.worker';

/**
 * Shipping: shipment → tracking outbox → worker → the service (§4.6, A9), with the root module's `shipping` (and
 * `workers`) options. Needs TypeORM, `EventEmitterModule` and a `GatewayClient`, as the root module provides.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
  providers: [section(SHIPPING_OPTIONS, 'shipping', resolveShippingOptions), TrackingService, TrackingWorker],
  exports: [SHIPPING_OPTIONS, TrackingService, TrackingWorker],
})
export class ShippingModule {}
