import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, HttpCode, HttpException, Inject, Post, Req, Res, Type } from '@nestjs/common';
import { DeliveryIntake } from './delivery-intake';
import type { WebhookReceipt } from './webhook-body';

/**
 * The webhook route as a Nest route: where the Express route ahead of the body parsers does not take the delivery
 * (another platform, or a host middleware read the body first). It calls the same {@link DeliveryIntake.receive} and
 * gives the same answers, refusals as HTTP errors.
 */
abstract class WebhooksControllerBase {
  constructor(@Inject(DeliveryIntake) private readonly intake: DeliveryIntake) {}

  @Post()
  @HttpCode(200)
  async receive(
    @Req() req: IncomingMessage,
    @Res({ passthrough: true }) res: ServerResponse,
  ): Promise<WebhookReceipt> {
    // Every answer of the route, errors included, is JSON that no browser may sniff into something else.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const answer = await this.intake.receive(req);
    if (answer.status !== 200) {
      if ('retryAfterSeconds' in answer && answer.retryAfterSeconds !== undefined)
        res.setHeader('Retry-After', String(answer.retryAfterSeconds));
      throw new HttpException(answer.body, answer.status);
    }
    return answer.body as WebhookReceipt;
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
