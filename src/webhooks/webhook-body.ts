import type { IncomingMessage, ServerResponse } from 'node:http';
import { exceedsJsonDepth } from '../gateway/payload.reader';
import type { IntakeResult } from './delivery-intake';

/** A body refused, with the HTTP status that says why (`unread`: refused before it was read as JSON). */
export type BodyRefusal = { ok: false; status: 400 | 413 | 415; message: string; unread?: true };

/** What reading a body gave: the bytes, or the HTTP status that refuses it. */
type RawBodyResult = { ok: true; body: Buffer } | BodyRefusal;

/** A delivery's body within the limit: its bytes, or what the host's JSON parser made of them. */
type BoundedBody = RawBodyResult | { ok: true; parsed: unknown };

/**
 * Reads a request body into memory, refusing more than `limit` bytes (413) and compressed bodies (415). A body
 * over the limit is not kept: the rest is left for Node to discard once the answer is sent.
 */
function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    return Promise.resolve({
      ok: false,
      status: 415,
      message: `content-encoding ${encoding} is not supported`,
    });
  }
  if (req.readableEnded) {
    return Promise.resolve({
      ok: false,
      status: 400,
      message: 'the body was already consumed by another parser',
    });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(tooLarge(limit));
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: RawBodyResult) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, status: 400, message: 'the body could not be read' });
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * The one bound on a delivery's body, whichever host hands it over: a request is read here within `limit` (unless
 * the host's parser read it first: its `req.body` then), bytes are measured, anything else is what a host's parser
 * made of them.
 */
export function boundedBody(source: unknown, limit: number): Promise<BoundedBody> {
  if (Buffer.isBuffer(source)) {
    if (source.length > limit) return Promise.resolve(tooLarge(limit));
    return Promise.resolve({ ok: true, body: source });
  }
  if (isRequest(source)) {
    const req = source as IncomingMessage & { body?: unknown };
    if (req.body !== undefined && (req.readableEnded || req.complete)) {
      return Promise.resolve(
        Buffer.isBuffer(req.body) ? boundedBody(req.body, limit) : { ok: true, parsed: req.body },
      );
    }
    return readRawBody(req, limit);
  }
  return Promise.resolve({ ok: true, parsed: source });
}

function isRequest(source: unknown): source is IncomingMessage {
  const req = source as Partial<IncomingMessage> | null;
  return (
    typeof req === 'object' && req !== null && typeof req.on === 'function' && typeof req.headers === 'object'
  );
}

function tooLarge(limit: number): RawBodyResult {
  return { ok: false, status: 413, message: `body exceeds ${limit} bytes` };
}

/**
 * A delivery's body read once, whichever host hands it over: within `limit` bytes ({@link boundedBody}), a JSON
 * object, nested at most `maxDepth` deep (checked before anything else walks it).
 */
export async function readDeliveryBody(
  source: unknown,
  limit: number,
  maxDepth: number,
): Promise<{ ok: true; value: Record<string, unknown> } | BodyRefusal> {
  const read = await boundedBody(source, limit);
  if (!read.ok) return { ...read, unread: true };
  let value: unknown = 'parsed' in read ? read.parsed : undefined;
  if ('body' in read) {
    try {
      value = JSON.parse(read.body.toString('utf8'));
    } catch {
      return { ok: false, status: 400, message: 'body: malformed JSON' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, message: 'body: must be a JSON object' };
  }
  if (exceedsJsonDepth(value, maxDepth)) {
    return { ok: false, status: 400, message: `body: nested deeper than ${maxDepth} levels` };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The 200 answer to a delivery. */
interface WebhookReceipt {
  received: true;
  /** Inbox entry id. */
  id: string;
  /** The delivery was already in the inbox (a retry or a duplicate): nothing new happens. */
  duplicate: boolean;
  state: 'pending' | 'processed' | 'ignored';
}

/** The body of a refusal, shaped as Nest's own HTTP exceptions answer. */
interface WebhookRefusal {
  statusCode: number;
  message: string;
  error?: string;
}

/** What the route answers to a delivery, whichever part of the host writes it. */
export type DeliveryAnswer =
  | { status: 200; body: WebhookReceipt }
  | { status: number; body: WebhookRefusal; retryAfterSeconds?: number };

/** The `error` of each refusal, as Nest's own exceptions name it. */
const ERROR_NAMES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  413: 'Payload Too Large',
  422: 'Unprocessable Entity',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The one mapping of an intake's outcome to the route's answer. */
export function answerOf(result: IntakeResult): DeliveryAnswer {
  if (!result.ok) {
    // A body refused before it was read (size, encoding, stream) is answered without the error's name.
    const error = result.unread ? {} : { error: ERROR_NAMES[result.status] };
    return {
      status: result.status,
      body: { statusCode: result.status, message: result.message, ...error },
      retryAfterSeconds: result.retryAfterSeconds,
    };
  }
  const { id, duplicate, state } = result.stored;
  return { status: 200, body: { received: true, id, duplicate, state: state as WebhookReceipt['state'] } };
}

/** The answer to a delivery whose intake failed unexpectedly (the database is down): the service retries it. */
export const INTERNAL_ERROR_ANSWER: DeliveryAnswer = {
  status: 500,
  body: { statusCode: 500, message: 'Internal server error' },
};

/**
 * Writes an answer on the raw response, as Express' `res.json` would: every answer of the route, errors included,
 * is JSON that no browser may sniff into something else.
 */
export function writeAnswer(res: ServerResponse, answer: DeliveryAnswer): void {
  const payload = JSON.stringify(answer.body);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'X-Content-Type-Options': 'nosniff',
  };
  if ('retryAfterSeconds' in answer && answer.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(answer.retryAfterSeconds);
  res.writeHead(answer.status, headers);
  res.end(payload);
}

/** Takes a delivery over HTTP and says what to answer ({@link DeliveryIntake.receive}). */
export type DeliveryReceiver = (req: IncomingMessage) => Promise<DeliveryAnswer>;

/**
 * The webhook route: a middleware for `POST <path>` (exactly or as a suffix, so a global prefix still matches) put
 * ahead of the host's body parsers, whose own limit would otherwise apply, that takes the delivery and answers it
 * there: the host's later middleware and Nest's router, guards and filters never see it. A body a host's middleware
 * already read is left to the Nest route, which takes it the same way.
 */
export function createWebhookRoute(path: string, receive: DeliveryReceiver) {
  const suffix = `/${path}`;
  return function invoicePaymentsWebhookRoute(
    req: IncomingMessage,
    res: ServerResponse,
    next: () => void,
  ): void {
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const pathname = url.split('?')[0].replace(/\/+$/, '');
    if (req.method !== 'POST' || !(pathname === suffix || pathname.endsWith(suffix))) return next();
    if (req.readableEnded) return next();
    receive(req).then(
      (answer) => writeAnswer(res, answer),
      () => writeAnswer(res, INTERNAL_ERROR_ANSWER),
    );
  };
}

interface ExpressLayer {
  handle?: { name?: string };
}
interface ExpressLike {
  use(fn: unknown): unknown;
  router?: { stack?: ExpressLayer[] };
  _router?: { stack?: ExpressLayer[] };
}

const BODY_PARSER_NAMES = new Set(['jsonParser', 'urlencodedParser', 'rawParser', 'textParser']);

/**
 * Puts `reader` in an Express app's middleware stack ahead of any body parser already there (Nest registers its
 * parsers before modules initialize). Returns `false` when the app is not Express-like, leaving it untouched.
 */
export function installBeforeBodyParsers(app: unknown, reader: (...args: never[]) => void): boolean {
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
