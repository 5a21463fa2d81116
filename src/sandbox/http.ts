import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES } from './constants';
import { badRequest } from './errors';

/** A plain JSON object from a request body. */
export type JsonObject = Record<string, unknown>;

/**
 * Reads the whole body, whatever the method: the service takes bodies on OPTIONS, COPY and DELETE too.
 * Resolves to '' for an empty body.
 */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () =>
      tooLarge
        ? reject(badRequest('body is larger than 1 MB'))
        : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}

/** Parses a body that must be a JSON object; 400 `bad_request` otherwise. */
export function parseJsonObject(raw: string): JsonObject {
  if (raw.trim() === '') throw badRequest('the body must be a JSON object, got an empty body');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest('the body is not valid JSON');
  }
  if (!isObject(parsed)) throw badRequest('the body must be a JSON object');
  return parsed;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Writes a binary or text answer of the given type (plus `headers`, whose `Content-Type` is `type`). */
export function sendRaw(
  res: ServerResponse,
  status: number,
  type: string,
  body: Buffer | string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
