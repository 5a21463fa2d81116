import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BadRequestException,
  Controller,
  HttpCode,
  HttpException,
  Inject,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
  Type,
  UnauthorizedException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { WEBHOOKS_OPTIONS } from './constants';
import { parseJsonObject, webhookBodyOf } from './webhook-body';
import { WebhookInboxProcessor } from './webhook-inbox.processor';
import { WebhookInboxService } from './webhook-inbox.service';
import { deliveryTextProblem, readDelivery } from './webhook-payload';
import { GatewayClient } from '../gateway/gateway.client';
import { exceedsJsonDepth } from '../gateway/payload.reader';
import { WebhookTokenService } from './webhook-token.service';
import type { ResolvedWebhooksOptions } from './types';

/** The 200 answer to a delivery. */
export interface WebhookReceipt {
  received: true;
  /** Inbox entry id. */
  id: string;
  /** The delivery was already in the inbox (a retry or a duplicate): nothing new happens. */
  duplicate: boolean;
  state: 'pending' | 'processed' | 'ignored';
}

/** Seconds the service is asked to wait before retrying when the token could not be validated. */
const RETRY_AFTER_SECONDS = '30';

/**
 * Receives the service's webhook deliveries: body within the limit (413) and a JSON object (400), token checked
 * (401 forged or unknown, 503 when the service cannot be asked), then stored in the inbox before the 200. The
 * status is applied from the inbox, not here, so a failure after the answer is retried, never lost.
 */
abstract class WebhooksControllerBase {
  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly tokens: WebhookTokenService,
    private readonly inbox: WebhookInboxService,
    private readonly processor: WebhookInboxProcessor,
    private readonly gateway: GatewayClient,
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
    let body: Record<string, unknown>;
    if ('parsed' in read) {
      if (typeof read.parsed !== 'object' || read.parsed === null || Array.isArray(read.parsed)) {
        throw new BadRequestException('body: must be a JSON object');
      }
      body = read.parsed as Record<string, unknown>;
    } else {
      const parsed = parseJsonObject(read.body);
      if (!parsed.ok) throw new BadRequestException(parsed.message);
      body = parsed.value;
    }
    // Before anything else reads it: nothing downstream walks a body deeper than this.
    if (exceedsJsonDepth(body, this.options.maxJsonDepth)) {
      throw new BadRequestException(`body: nested deeper than ${this.options.maxJsonDepth} levels`);
    }

    const auth = await this.tokens.authenticate(req);
    if (!auth.ok) {
      if (auth.status === 503) {
        res.setHeader('Retry-After', String(auth.retryAfterSeconds ?? RETRY_AFTER_SECONDS));
        throw new ServiceUnavailableException(auth.reason);
      }
      throw new UnauthorizedException(auth.reason);
    }

    const delivery = readDelivery(body, await this.gateway.wireProfile());
    const problem = deliveryTextProblem(delivery);
    if (problem) throw new BadRequestException(problem);
    const stored = await this.inbox.store(delivery, body, auth.webhookId);
    if (stored.state === 'dead')
      throw new UnprocessableEntityException(stored.problem ?? 'unreadable delivery');
    if (stored.state === 'pending') this.processor.kick(stored.id, stored.gatewayId);
    return { received: true, id: stored.id, duplicate: stored.duplicate, state: stored.state };
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
