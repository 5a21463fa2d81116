import { type IncomingMessage, STATUS_CODES } from 'node:http';
import { Controller, Inject, Logger, Post, Req, Res, type Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { messageOf } from '../core/events';
import { type ResolvedWebhooksOptions, WEBHOOKS_OPTIONS } from '../options/webhooks.options';
import { tooLarge } from './delivery-checks';
import { DeliveryIntake, type IntakeResult } from './delivery-intake';

/**
 * A receipt `{ received, id, duplicate, joined, state }`; an acknowledgement of a delivery not needed, nothing stored
 * `{ received, ignored, message }`; or a refusal shaped as Nest's HTTP exceptions answer.
 */
export type DeliveryAnswer = { status: number; body: object; retryAfterSeconds?: number };

/** A request as the platform hands it over: Express' is the Node request; Fastify's keeps it as `raw`. */
type PlatformRequest = { body?: unknown; headers: IncomingMessage['headers']; raw?: IncomingMessage };

const logger = new Logger('WebhooksController');

/**
 * The one receive path, on every HTTP platform: a Nest route taking the body the host's parser read (its size is that
 * parser's limit, and `webhooks.bodyLimitBytes` by the declared length). One class per path (decorator metadata).
 */
export function createWebhooksController(path: string): Type<unknown> {
  @Controller(path)
  class InvoicePaymentsWebhooksController {
    constructor(
      @Inject(DeliveryIntake) private readonly intake: DeliveryIntake,
      @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
      @Inject(HttpAdapterHost) private readonly host: HttpAdapterHost,
    ) {}

    @Post()
    async receive(@Req() req: PlatformRequest, @Res() res: unknown): Promise<void> {
      const answer = await this.answer(req);
      const adapter = this.host.httpAdapter;
      adapter.setHeader(res, 'X-Content-Type-Options', 'nosniff');
      if (answer.retryAfterSeconds !== undefined) {
        adapter.setHeader(res, 'Retry-After', String(answer.retryAfterSeconds));
      }
      adapter.reply(res, answer.body, answer.status);
    }

    /** The intake's answer; an unexpected failure (database down) is answered 500, so the service retries. */
    private async answer(req: PlatformRequest): Promise<DeliveryAnswer> {
      const refused = tooLarge(Number(req.headers['content-length']) || 0, this.options);
      if (refused) return answerOf(refused);
      try {
        return answerOf(await this.intake.accept({ headers: req.raw ?? req, body: req.body }));
      } catch (err) {
        logger.error(`webhook delivery not stored: ${messageOf(err)}`);
        return { status: 500, body: { statusCode: 500, message: 'Internal server error' } };
      }
    }
  }
  return InvoicePaymentsWebhooksController;
}

/** The route's answer to what the intake (or a host's reading of the body) made of a delivery. */
export function answerOf(result: IntakeResult): DeliveryAnswer {
  if (result.ok && 'ignored' in result) {
    const { reason, message } = result.ignored;
    return { status: 200, body: { received: true, ignored: reason, message } };
  }
  if (result.ok) {
    const { id, duplicate, joined, state } = result.stored;
    return { status: 200, body: { received: true, id, duplicate, joined, state } };
  }
  const { status, message, retryAfterSeconds } = result;
  return { status, body: { statusCode: status, message, error: STATUS_CODES[status] }, retryAfterSeconds };
}
