import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import getRawBody from 'raw-body';
import {
  Controller,
  DynamicModule,
  Inject,
  Injectable,
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
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HOST_WEBHOOKS, type HostDelivery, type HostDeliveryOutcome, type HostWebhooks } from '../core/ports';
import {
  resolveWebhooksOptions,
  type ResolvedWebhooksOptions,
  WEBHOOKS_OPTIONS,
  type WebhooksOptions,
} from '../options/webhooks.options';
import { asRecord, exceedsJsonDepth, type JsonRecord } from '../gateway/payload.reader';
import { messageOf as message } from '../core/events';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { type DeliveryInput, DeliveryIntake, type IntakeResult } from './delivery-intake';
import { DeliveryConfirmation } from './delivery-confirmation';
import { WebhookInboxEntry } from './webhook-inbox.entity';
import { webhookInboxRowsProvider } from './webhook-inbox.rows';
import { WebhookInboxProcessor } from './webhook-inbox.processor';

/** Wiring choices of {@link WebhooksModule.forRoot} beyond its options. */
export interface WebhooksModuleExtras {
  /** A provider of `WEBHOOK_MERCHANT_TOKEN_SOURCE` (the merchant token read at runtime). Default: none. */
  merchantTokenSource?: Provider;
  /** A provider of `WEBHOOKS_OPTIONS` (resolved). Default: `options` resolved; the route is always `options.path`. */
  optionsProvider?: Provider;
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
        extras.optionsProvider ?? { provide: WEBHOOKS_OPTIONS, useValue: resolved },
        ...(extras.merchantTokenSource ? [extras.merchantTokenSource] : []),
        webhookInboxRowsProvider,
        DeliveryConfirmation,
        WebhookInboxProcessor,
        DeliveryIntake,
        { provide: HOST_WEBHOOKS, useClass: HostDeliveries },
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

/**
 * {@link HostWebhooks}: a delivery a host received, through the one intake, processed before the answer; the host
 * hears what the service said in the lookup that answered it (never the body), about the record it was applied to.
 */
@Injectable()
class HostDeliveries implements HostWebhooks {
  constructor(
    private readonly intake: DeliveryIntake,
    private readonly confirmation: DeliveryConfirmation,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async settle(delivery: HostDelivery | null | undefined): Promise<HostDeliveryOutcome> {
    const body: DeliveryInput['body'] = (limit, depth) => readDeliveryBody(bodyOf(delivery), limit, depth);
    const result = await this.intake.accept({ headers: delivery?.headers ?? {}, body }, true);
    if (!result.ok) {
      const reason = `${result.status}: ${result.message}`;
      return result.status === 503 ? { kind: 'later', reason } : { kind: 'none', reason };
    }
    const { stored } = result;
    const entry = await this.dataSource.getRepository(WebhookInboxEntry).findOneBy({ id: stored.id });
    if (entry?.state === 'pending')
      return { kind: 'later', reason: entry.lastError ?? 'the entry is still pending' };
    // The record the inbox applied it to: none for an invoice of no record here, or another's (left alone). A
    // processed entry names its invoice: one naming none is dead-lettered.
    if (entry?.state !== 'processed' || !entry.invoiceRecordId || entry.gatewayId === null) {
      return { kind: 'none', reason: entry?.outcome ?? entry?.lastError ?? 'not applied to any record' };
    }
    const record = await this.dataSource
      .getRepository(InvoiceRecord)
      .findOneBy({ id: entry.invoiceRecordId });
    if (!record) return { kind: 'none', reason: `record ${entry.invoiceRecordId} is gone` };
    const answer = this.confirmation.answerOf(entry.gatewayId, entry.receivedAt);
    // Answered in another process (or forgotten): the record holds what that lookup applied.
    const confirmed =
      answer?.recordId === record.id
        ? answer.status
        : { code: record.statusCode ?? -1, paidCents: record.paidCents, grossCents: record.grossCents };
    return { kind: 'applied', record, confirmed };
  }
}

/** The parsed body the host passes, else its raw bytes (the intake parses them, within the size limit). */
function bodyOf(delivery: HostDelivery | null | undefined): unknown {
  const data = delivery?.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && Object.keys(data).length > 0)
    return data;
  const raw = delivery?.rawData;
  if (raw === undefined || raw === null || raw === '') return data ?? null;
  return Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw), 'utf8');
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
    const body: DeliveryInput['body'] = (limit, depth) => readDeliveryBody(req, limit, depth);
    return answerOf(await intake.accept({ headers: req, body }));
  } catch (err) {
    logger.error(`webhook delivery not stored: ${message(err)}`);
    return INTERNAL_ERROR_ANSWER;
  }
}

/** A delivery refused, with the HTTP status that says why (`unread`: refused before its body was read as JSON). */
export type Refusal = {
  ok: false;
  status: number;
  message: string;
  unread?: true;
  retryAfterSeconds?: number;
};

type RawBodyResult = { ok: true; body: Buffer } | Refusal;
type BoundedBody = RawBodyResult | { ok: true; parsed: unknown };

const refusal = (status: number, message: string): Refusal => ({ ok: false, status, message });

/** A body over the limit is not kept: the rest is discarded as it arrives. */
async function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') return refusal(415, `content-encoding ${encoding} is not supported`);
  if (req.readableEnded) return refusal(400, 'the body was already consumed by another parser');
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return tooLarge(limit);
  try {
    return { ok: true, body: await getRawBody(req, { limit }) };
  } catch (err) {
    // raw-body pauses a request it gives up on; resumed, the connection can be kept alive for the next request.
    req.resume();
    const tooLong = (err as { type?: string }).type === 'entity.too.large';
    return tooLong ? tooLarge(limit) : refusal(400, 'the body could not be read');
  }
}

/** The one bound on a delivery's body: a request read within `limit` (or its `req.body` a parser read), bytes. */
export async function boundedBody(source: unknown, limit: number): Promise<BoundedBody> {
  const req = source as (IncomingMessage & { body?: unknown }) | null;
  if (typeof req?.on === 'function' && typeof req.headers === 'object') {
    if (req.body === undefined || !(req.readableEnded || req.complete)) return readRawBody(req, limit);
    source = req.body;
  }
  if (!Buffer.isBuffer(source)) return { ok: true, parsed: source };
  return source.length > limit ? tooLarge(limit) : { ok: true, body: source };
}

const tooLarge = (limit: number) => refusal(413, `body exceeds ${limit} bytes`);

/** A delivery's body read once, whichever host hands it over: bounded, a JSON object, at most `maxDepth` deep. */
export async function readDeliveryBody(
  source: unknown,
  limit: number,
  maxDepth: number,
): Promise<{ ok: true; value: JsonRecord } | Refusal> {
  const read = await boundedBody(source, limit);
  if (!read.ok) return { ...read, unread: true };
  let value: unknown;
  try {
    value = 'body' in read ? JSON.parse(read.body.toString('utf8')) : read.parsed;
  } catch {
    return refusal(400, 'body: malformed JSON');
  }
  if (asRecord(value) === null) return refusal(400, 'body: must be a JSON object');
  if (exceedsJsonDepth(value, maxDepth)) return refusal(400, `body: nested deeper than ${maxDepth} levels`);
  return { ok: true, value: value as JsonRecord };
}

/** A receipt `{ received, id, duplicate, state }`, or a refusal shaped as Nest's HTTP exceptions answer. */
export type DeliveryAnswer = { status: number; body: object; retryAfterSeconds?: number };

function answerOf(result: IntakeResult): DeliveryAnswer {
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
