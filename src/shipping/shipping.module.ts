import { DynamicModule, Module, Provider } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GatewayClient } from '../gateway/gateway.client';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { SHIPPING_OPTIONS, TRACKING_POSTER } from './constants';
import { ShipmentListener } from './shipment.listener';
import { TrackingOutbox } from './tracking-outbox.entity';
import { TrackingService } from './tracking.service';
import { TrackingWorker } from './tracking.worker';
import { type ShippingModuleOptions, resolveShippingOptions } from '../options/shipping.options';

/** Wiring choices of {@link ShippingModule.forRoot} beyond its options. */
export interface ShippingModuleExtras {
  /**
   * A provider of {@link TRACKING_POSTER}. Default: the app's `GatewayClient` (`addTrackingCode` and
   * `findTrackingCode`, A9), which must then be injectable where this module is imported (the root module provides
   * it).
   */
  poster?: Provider;
  /** A provider of `SHIPPING_OPTIONS` (resolved options; the root module derives them). Default: `options` resolved. */
  optionsProvider?: Provider;
}

/**
 * Shipping: the host's shipment event (or `TrackingService.recordShipment`) → the tracking outbox → the worker →
 * the service's tracking operation (§4.6, A9). Needs TypeORM (with the module's migrations) and
 * `EventEmitterModule.forRoot()` in the app.
 */
@Module({})
export class ShippingModule {
  static forRoot(options: ShippingModuleOptions = {}, extras: ShippingModuleExtras = {}): DynamicModule {
    const resolved = resolveShippingOptions(options); // refuses bad options when the module is defined
    return {
      module: ShippingModule,
      imports: [TypeOrmModule.forFeature([TrackingOutbox, InvoiceRecord])],
      providers: [
        extras.optionsProvider ?? { provide: SHIPPING_OPTIONS, useValue: resolved },
        extras.poster ?? { provide: TRACKING_POSTER, useExisting: GatewayClient },
        TrackingService,
        TrackingWorker,
        ShipmentListener,
      ],
      exports: [SHIPPING_OPTIONS, TrackingService, TrackingWorker],
    };
  }
}
