import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import {
  Controller,
  DynamicModule,
  Inject,
  Logger,
  Module,
  OnModuleInit,
  Optional,
  Post,
  Provider,
  Req,
  Res,
  Type,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { HOST_WEBHOOKS } from '../core/ports';
import {
  resolveWebhooksOptions,
  type ResolvedWebhooksOptions,
  WEBHOOKS_OPTIONS,
  type WebhooksOptions,
} from '../options/webhooks.options';
import { section } from '../options/resolve';
import { readBoundedJson } from '../core/bounded-json';
import { messageOf as message } from '../core/events';
import { type DeliveryInput, DeliveryIntake, type IntakeResult } from './delivery-intake';
import { DeliveryAdmission } from './delivery-admission';
import { DeliveryConfirmation } from './delivery-confirmation';
import { webhookInboxRowsProvider } from './webhook-inbox.rows';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

/** Wiring choices of {@link WebhooksModule.forRoot} beyond its options. */
export interface WebhooksModuleExtras {
  /** A provider of `WEBHOOK_MERCHANT_TOKEN_SOURCE` (the merchant token read at runtime). Default: none. */
  merchantTokenSource?: Provider;
}

/** Webhook reception at `options.path`; status changes go through the global `InvoiceStatusModule` (import it). */
@Module({})
export class WebhooksModule implements OnModuleInit {
  private readonly logger = new Logger(WebhooksModule.name);

  constructor(
    @Inject(WEBHOOKS_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    private readonly intake: DeliveryIntake,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  static forRoot(options: WebhooksOptions = {}, extras: WebhooksModuleExtras = {}): DynamicModule {
    const resolved = resolveWebhooksOptions(options);
    return {
      module: WebhooksModule,
      // Global so the checkout's provider reaches HOST_WEBHOOKS (every token is this package's own).
      global: true,
      controllers: [createWebhooksController(resolved.path)],
      providers: [
        section(WEBHOOKS_OPTIONS, 'webhooks', resolveWebhooksOptions),
        ...(extras.merchantTokenSource ? [extras.merchantTokenSource] : []),
        webhookInboxRowsProvider,
        DeliveryConfirmation,
        DeliveryAdmission,
        WebhookInboxProcessor,
        DeliveryIntake,
        { provide: HOST_WEBHOOKS, useExisting: DeliveryIntake },
      ],
      exports: [WEBHOOKS_OPTIONS, HOST_WEBHOOKS, WebhookInboxProcessor],
    };
  }

  /** On Express the route goes ahead of the host's JSON parser (its own body limit); elsewhere the Nest route. */
  onModuleInit(): void {
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return; // an application context without HTTP: no route
    const route = createWebhookRoute(this.options.path, (req) => receive(this.intake, req));
    if (adapter.getType() !== 'express' || !installBeforeBodyParsers(adapter.getInstance(), route)) {
      this.logger.warn(
        `the webhook route is the Nest route here: the host's body parser limit applies to /${this.options.path}`,
      );
    }
  }
}

/** The Nest route, for a delivery whose body a host middleware read; one class per path (decorator metadata). */
function createWebhooksController(path: string): Type<unknown> {
  @Controller(path)
  class InvoicePaymentsWebhooksController {
    constructor(@Inject(DeliveryIntake) private readonly intake: DeliveryIntake) {}

    @Post()
    async receive(@Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
      writeAnswer(res, await receive(this.intake, req));
    }
  }
  return InvoicePaymentsWebhooksController;
}

const logger = new Logger(WebhooksModule.name);

/** A delivery over HTTP, accepted by the intake; an unexpected failure (database down) is answered 500: retried. */
async function receive(intake: DeliveryIntake, req: IncomingMessage): Promise<DeliveryAnswer> {
  try {
    const body: DeliveryInput['body'] = (limit, depth) => readBoundedJson(req, limit, depth);
    return answerOf(await intake.accept({ headers: req, body }));
  } catch (err) {
    logger.error(`webhook delivery not stored: ${message(err)}`);
    return INTERNAL_ERROR_ANSWER;
  }
}

/**
 * A receipt `{ received, id, duplicate, state }`; an acknowledgement of a delivery not needed, nothing stored
 * `{ received, ignored, message }`; or a refusal shaped as Nest's HTTP exceptions answer.
 */
export type DeliveryAnswer = { status: number; body: object; retryAfterSeconds?: number };

function answerOf(result: IntakeResult): DeliveryAnswer {
  if (result.ok && 'ignored' in result) {
    const { reason, message } = result.ignored;
    return { status: 200, body: { received: true, ignored: reason, message } };
  }
  if (result.ok) {
    const { id, duplicate, state } = result.stored;
    return { status: 200, body: { received: true, id, duplicate, state } };
  }
  // A body refused before it was read (size, encoding, stream) is answered without the error's name.
  const { status, message, retryAfterSeconds } = result;
  const error = result.unread ? {} : { error: STATUS_CODES[status] };
  return { status, body: { statusCode: status, message, ...error }, retryAfterSeconds };
}

const INTERNAL_ERROR_ANSWER = { status: 500, body: { statusCode: 500, message: 'Internal server error' } };

/** Writes an answer as Express' `res.json` would, errors included: JSON no browser may sniff into anything else. */
function writeAnswer(res: ServerResponse, answer: DeliveryAnswer): void {
  const payload = JSON.stringify(answer.body);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'X-Content-Type-Options': 'nosniff',
  };
  if (answer.retryAfterSeconds !== undefined) headers['Retry-After'] = String(answer.retryAfterSeconds);
  res.writeHead(answer.status, headers);
  res.end(payload);
}

export type DeliveryReceiver = (req: IncomingMessage) => Promise<DeliveryAnswer>;

/**
 * The webhook route: a middleware for `POST …<path>` (a global prefix still matches) put ahead of the host's body
 * parsers, whose own limit would otherwise apply; a body a host's middleware read is left to the Nest route.
 */
export function createWebhookRoute(path: string, receive: DeliveryReceiver) {
  const suffix = `/${path}`;
  return function invoicePaymentsWebhookRoute(req: IncomingMessage, res: ServerResponse, next: () => void) {
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const pathname = url.split('?')[0].replace(/\/+$/, '');
    if (req.method !== 'POST' || req.readableEnded || !pathname.endsWith(suffix)) return next();
    receive(req).then(
      (answer) => writeAnswer(res, answer),
      () => writeAnswer(res, INTERNAL_ERROR_ANSWER),
    );
  };
}

type ExpressStack = { stack?: Array<{ handle?: { name?: string } }> };
type ExpressLike = { use(fn: unknown): unknown; router?: ExpressStack; _router?: ExpressStack };

const BODY_PARSER_NAMES = new Set(['jsonParser', 'urlencodedParser', 'rawParser', 'textParser']);

/** Puts `reader` ahead of the body parsers Nest registered; `false` when the app is not Express-like. */
function installBeforeBodyParsers(app: unknown, reader: (...args: never[]) => void): boolean {
  const express = app as ExpressLike;
  if (!express || typeof express.use !== 'function') return false;
  express.use(reader);
  const stack = (express.router ?? express._router)?.stack;
  if (!Array.isArray(stack)) return false;
  const at = stack.findIndex((layer) => layer.handle === (reader as unknown));
  if (at < 0) return false;
  const [layer] = stack.splice(at, 1);
  const firstParser = stack.findIndex((l) => BODY_PARSER_NAMES.has(l.handle?.name ?? ''));
  stack.splice(firstParser < 0 ? 0 : firstParser, 0, layer);
  return true;
}
