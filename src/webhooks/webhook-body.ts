import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DeliveryAnswer, INTERNAL_ERROR_ANSWER, writeAnswer } from './webhook-answer';

/** What reading a body gave: the bytes, or the HTTP status that refuses it. */
export type RawBodyResult =
  { ok: true; body: Buffer } | { ok: false; status: 413 | 415 | 400; message: string };

/** A delivery's body within the limit: its bytes, or what the host's JSON parser made of them. */
export type BoundedBody = RawBodyResult | { ok: true; parsed: unknown };

/**
 * Reads a request body into memory, refusing more than `limit` bytes (413) and compressed bodies (415). A body
 * over the limit is not kept: the rest is left for Node to discard once the answer is sent.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<RawBodyResult> {
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

/** Parses a body as a JSON object, or says why not (400). */
export function parseJsonObject(
  body: Buffer,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, message: 'body: malformed JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'body: must be a JSON object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Takes a delivery over HTTP and says what to answer ({@link DeliveryIntake.receive}). */
export type DeliveryReceiver = (req: IncomingMessage) => Promise<DeliveryAnswer>;

/**
 * The webhook route on Express: a middleware for `POST <path>`, put ahead of the host's JSON parser (whose own
 * limit, 100 KB by default, would otherwise apply), that takes the delivery and answers it there; the host's later
 * middleware and Nest's router, guards, interceptors and filters never see it. Matches the path exactly or as a
 * suffix, so a global prefix (`/api/...`) still matches. A body a host's middleware already read is left to the
 * Nest route, which takes it the same way.
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
