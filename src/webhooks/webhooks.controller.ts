import type { IncomingMessage, ServerResponse } from 'node:http';
import { Controller, HttpCode, HttpException, Inject, Post, Req, Res, Type } from '@nestjs/common';
import { WEBHOOKS_OPTIONS } from './constants';
import { DeliveryIntake } from './delivery-intake';
import { answerOf, type WebhookReceipt } from './webhook-answer';
import { webhookBodyOf } from './webhook-body';
import type { ResolvedWebhooksOptions } from './types';

/**
 * Receives the service's webhook deliveries through the {@link DeliveryIntake} (the same checks and answers as every
 * other host), answering its refusals as HTTP errors. Stored in the inbox before the 200; the status is applied
 * from the inbox, not here, so a failure after the answer is retried, never lost.
 */
abstract class WebhooksControllerBase {
  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly intake: DeliveryIntake,
  ) {}

  @Post()
  @HttpCode(200)
  async receive(
    @Req() req: IncomingMessage & { body?: unknown },
    @Res({ passthrough: true }) res: ServerResponse,
  ): Promise<WebhookReceipt> {
    // Every answer of the route, errors included, is JSON that no browser may sniff into something else.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const read = await webhookBodyOf(req, this.options.bodyLimitBytes);
    if (!read.ok) throw new HttpException({ statusCode: read.status, message: read.message }, read.status);
    const answer = answerOf(
      await this.intake.accept({ headers: req, body: 'parsed' in read ? read.parsed : read.body }),
    );
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
