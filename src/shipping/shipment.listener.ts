import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { SHIPPING_OPTIONS } from './constants';
import { OrderNotPaidError, ShipmentValidationError } from './errors';
import { TrackingService } from './tracking.service';
import type { RecordShipmentInput } from './types';
import type { ResolvedShippingOptions } from '../options/shipping.options';

/**
 * Listens for the host's shipment event (`shipping.shipmentEvent`, default `order.shipment_created`) and records
 * its tracking code. Registered with `EventEmitter2.on` at start-up rather than `@OnEvent`, whose name is fixed
 * at compile time, so the host can name its own event.
 *
 * The listener never throws into the host's `emit`: a refused shipment is logged (by `TrackingService`), and so is
 * a failure to store it, with the order and code so it can be recorded again.
 */
@Injectable()
export class ShipmentListener implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('InvoicePayments:Shipping');
  private readonly listener = (payload: unknown): Promise<void> => this.onShipment(payload);

  constructor(
    private readonly events: EventEmitter2,
    private readonly tracking: TrackingService,
    @Inject(SHIPPING_OPTIONS) private readonly options: ResolvedShippingOptions,
  ) {}

  onModuleInit(): void {
    if (this.options.shipmentEvent !== false) this.events.on(this.options.shipmentEvent, this.listener);
  }

  onModuleDestroy(): void {
    if (this.options.shipmentEvent !== false) this.events.off(this.options.shipmentEvent, this.listener);
  }

  /** Handles one shipment event; resolves once the code is stored (or refused). */
  async onShipment(payload: unknown): Promise<void> {
    let shipment: RecordShipmentInput;
    try {
      shipment = this.options.mapShipmentEvent(payload);
    } catch (err) {
      this.logger.warn(`Shipment event ignored, its payload is unusable: ${messageOf(err)}`);
      return;
    }
    try {
      await this.tracking.recordShipment(shipment);
    } catch (err) {
      // Refusals were logged by the service with their reason.
      if (err instanceof ShipmentValidationError || err instanceof OrderNotPaidError) return;
      this.logger.error(
        `Shipment event for order ${String(shipment.orderId)} (tracking code ${String(shipment.trackingCode)}) ` +
          `was not recorded: ${messageOf(err)}`,
      );
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
