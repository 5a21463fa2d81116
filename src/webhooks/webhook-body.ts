import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DeliveryAnswer, INTERNAL_ERROR_ANSWER, writeAnswer } from './webhook-answer';

/** Where the route's own body reader leaves what it read. */
export const WEBHOOK_RAW_BODY = Symbol('invoice-payments.webhook-raw-body');

/** What reading a body gave: the bytes, or the HTTP status that refuses it. */
export type RawBodyResult =
  { ok: true; body: Buffer } | { ok: false; status: 413 | 415 | 400; message: string };

type ReqWithBody = IncomingMessage & { [WEBHOOK_RAW_BODY]?: Promise<RawBodyResult>; rawBody?: Buffer };

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
  const tooLarge: RawBodyResult = { ok: false, status: 413, message: `body exceeds ${limit} bytes` };
  if (req.readableEnded) {
    return Promise.resolve({
      ok: false,
      status: 400,
      message: 'the body was already consumed by another parser',
    });
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: RawBodyResult) => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) finish(tooLarge);
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, body: Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, status: 400, message: 'the body could not be read' });
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * The body of a webhook request: what the route's reader took (see {@link createWebhookBodyReader}), else what the
 * host's body parser left in `req.body`, else read here from the stream.
 */
export async function webhookBodyOf(
  req: IncomingMessage & { body?: unknown },
  limit: number,
): Promise<RawBodyResult | { ok: true; parsed: unknown }> {
  const early = (req as ReqWithBody)[WEBHOOK_RAW_BODY];
  if (early) return early;
  if (req.body !== undefined && (req.readableEnded || req.complete)) return { ok: true, parsed: req.body };
  return readRawBody(req, limit);
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

/** Stores a delivery read by the body reader and says what to answer (the {@link DeliveryIntake}, mapped). */
export type EarlyAnswerer = (req: IncomingMessage, body: Buffer) => Promise<DeliveryAnswer>;

/**
 * An Express middleware that reads the body of `POST <path>` itself, before the host's JSON parser (whose own
 * limit, 100 KB by default, would otherwise apply). Matches the path exactly or as a suffix, so a global prefix
 * (`/api/...`) still matches. With `answer` it answers the delivery there (`webhooks.answerInBodyReader`): the
 * host's later middleware and Nest's router, guards, interceptors and filters never see it. Without, it leaves the
 * bytes for the controller.
 */
export function createWebhookBodyReader(path: string, limit: number, answer?: EarlyAnswerer) {
  const suffix = `/${path}`;
  return function invoicePaymentsWebhookBody(
    req: IncomingMessage,
    res: ServerResponse,
    next: () => void,
  ): void {
    const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
    const pathname = url.split('?')[0].replace(/\/+$/, '');
    if (req.method !== 'POST' || !(pathname === suffix || pathname.endsWith(suffix))) return next();
    if (req.readableEnded) return next(); // an earlier parser read it: the controller uses its `req.body`
    const reading = readRawBody(req, limit);
    (req as ReqWithBody)[WEBHOOK_RAW_BODY] = reading;
    void reading.then((result) => {
      if (!result.ok) {
        // Answered here: passing on an unread body would let the host's parser answer with its own limit.
        writeAnswer(res, {
          status: result.status,
          body: { statusCode: result.status, message: result.message },
        });
        return;
      }
      if (answer) {
        answer(req, result.body).then(
          (answered) => writeAnswer(res, answered),
          () => writeAnswer(res, INTERNAL_ERROR_ANSWER),
        );
        return;
      }
      // Kept for hosts that look for `rawBody` (Nest's `rawBody: true` option does the same).
      (req as ReqWithBody).rawBody = result.body;
      next();
    });
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
