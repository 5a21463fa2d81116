import type { IncomingMessage } from 'node:http';
import getRawBody from 'raw-body';
import { asRecord, exceedsJsonDepth, type JsonRecord } from '../gateway/json';

// A JSON body from outside read once, as a body parser would, knowing nothing of what it carries: its encoding, its
// size (the rest discarded as it arrives), JSON, an object, its depth. What refuses it says the HTTP status.

/** A request refused, with the HTTP status that says why (`unread`: refused before its body was read as JSON). */
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

/** The one bound on a body: a request read within `limit` (or its `req.body` a parser read), bytes. */
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

/** A request's body read once, whichever host hands it over: bounded, a JSON object, at most `maxDepth` deep. */
export async function readBoundedJson(
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
