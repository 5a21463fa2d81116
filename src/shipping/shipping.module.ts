import { DynamicModule, Module, Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { resolveShippingOptions } from '../options/shipping.options';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SHIPPING_OPTIONS } from './constants';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingService } from './tracking.service';
import { TrackingWorker } from './tracking.worker';
import type { ShippingModuleOptions } from '../options/shipping.options';

/**
 * Shipping: the host's shipment event (or `TrackingService.recordShipment`) → the tracking outbox → the worker →
 * the service's tracking operation (§4.6, A9). Needs TypeORM (with the module's migrations),
 * `EventEmitterModule.forRoot()` and an injectable `GatewayClient` in the app (the root module provides both).
 * `optionsProvider`: a provider of `SHIPPING_OPTIONS` (the root module derives them); default: `options` resolved.
 */
@Module({})
export class ShippingModule {
  static forRoot(
    options: ShippingModuleOptions = {},
    extras: { optionsProvider?: Provider } = {},
  ): DynamicModule {
    const resolved = resolveShippingOptions(options); // refuses bad options when the module is defined
    return {
      module: ShippingModule,
      imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
      providers: [
        extras.optionsProvider ?? { provide: SHIPPING_OPTIONS, useValue: resolved },
        TrackingService,
        TrackingWorker,
      ],
      exports: [SHIPPING_OPTIONS, TrackingService, TrackingWorker],
    };
  }
}
