import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, Inject, Post, Req, Res, Type } from '@nestjs/common';
import { DeliveryIntake } from './delivery-intake';
import { writeAnswer } from './webhook-body';

/**
 * The webhook route as a Nest route, for a delivery the route ahead of the body parsers left alone (a host
 * middleware read the body first): the same {@link DeliveryIntake.receive}, the same answer written the same way.
 */
abstract class WebhooksControllerBase {
  constructor(@Inject(DeliveryIntake) private readonly intake: DeliveryIntake) {}

  @Post()
  async receive(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    writeAnswer(res, await this.intake.receive(req));
  }
}

/**
 * The controller class for a route: one class per configured path, so two apps in one process (tests) can use
 * different paths without sharing decorator metadata.
 */
export function createWebhooksController(path: string): Type<unknown> {
  @Controller(path)
  class InvoicePaymentsWebhooksController extends WebhooksControllerBase {}
  return InvoicePaymentsWebhooksController;
}
