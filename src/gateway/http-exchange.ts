import http from 'node:http';
import https from 'node:https';
import { HttpService } from '@nestjs/axios';
import axios, { isAxiosError } from 'axios';
import { firstValueFrom } from 'rxjs';

export type ExchangeRequest = {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
};
export type ExchangeAnswer = { status: number; headers: Record<string, unknown>; body: unknown };

/** No HTTP answer: the system's code and message, nothing of the request. */
export class ExchangeFailure extends Error {
  constructor(
    readonly code: string | null,
    message: string,
  ) {
    super(message);
    this.name = 'ExchangeFailure';
  }
}

/** One HTTP request and its answer: resolves with whatever status came back; rejects with {@link ExchangeFailure} only. */
export type HttpExchange = (request: ExchangeRequest) => Promise<ExchangeAnswer>;

const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
const USER_AGENT = 'nestjs-invoice-payments';

/** The host's `HttpService` when it gives one, or axios when the environment names an HTTP proxy; else Node's own. */
export function exchangeFor(httpService?: HttpService): HttpExchange {
  return httpService || proxyConfigured() ? axiosExchange(httpService) : nodeExchange();
}

/** Node's `http`/`https`, cheaper than axios: no redirect followed (it could carry the token away), answer bounded. */
export function nodeExchange(maxBytes = MAX_ANSWER_BYTES): HttpExchange {
  return (request) =>
    new Promise<ExchangeAnswer>((resolve, reject) => {
      const url = new URL(request.url);
      const headers: Record<string, string> = { 'User-Agent': USER_AGENT, ...request.headers };
      if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
      const send = url.protocol === 'https:' ? https.request : http.request;
      const req = send(url, { method: request.method, headers, signal: request.signal }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) {
            chunks.push(chunk);
            return;
          }
          req.destroy();
          reject(new ExchangeFailure('ERR_ANSWER_TOO_LARGE', `answer larger than ${maxBytes} bytes`));
        });
        res.on('end', () => {
          const body = parseAnswer(Buffer.concat(chunks, size).toString('utf8'));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', (err) => reject(failureOf(err)));
      });
      req.on('error', (err) => reject(failureOf(err)));
      req.end(request.body);
    });
}

/** Through a host's `HttpService`, or axios when the environment names an HTTP proxy (Node's `http` ignores it). */
function axiosExchange(service: HttpService = new HttpService(axios.create())): HttpExchange {
  return async (request) => {
    // OPTIONS, COPY and DELETE carry JSON bodies too (§4.4, §4.7, §4.8): axios sends `data` whatever the method.
    const { body: data, ...sent } = request;
    const bounds = { validateStatus: () => true, maxRedirects: 0, maxContentLength: MAX_ANSWER_BYTES };
    const answer = service.request<unknown>({ ...sent, data, ...bounds, responseType: 'json' });
    const res = await firstValueFrom(answer).catch((err: unknown) => Promise.reject(failureOf(err)));
    return { status: res.status, headers: res.headers as Record<string, unknown>, body: res.data };
  };
}

export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'].some((name) => Boolean(env[name]));
}

/** As axios reads a JSON answer: parsed when it parses, else the text (an empty answer: ''). */
function parseAnswer(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

type Failure = { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown } | undefined;

const textOf = (value: unknown): string | null => (typeof value === 'string' && value ? value : null);

/** Only the system code and message of a failure; axios' error (which holds the request's headers) is dropped. */
function failureOf(err: unknown): ExchangeFailure {
  if (err instanceof ExchangeFailure) return err;
  // Duck-typed: an error from Node's own realm is not an `instanceof Error` of every context (jest's, a vm).
  const e = (typeof err === 'object' && err !== null ? err : undefined) as Failure;
  const fromAxios = isAxiosError(err);
  // The system error under axios' own is its `cause`; under an `AggregateError`, the first of its `errors`.
  let inner: Failure;
  if (fromAxios) inner = e?.cause as Failure;
  else if (Array.isArray(e?.errors)) inner = e.errors[0] as Failure;
  const innerCode = textOf(inner?.code);
  let code = textOf(e?.code) ?? innerCode;
  if (fromAxios && code === 'ERR_NETWORK' && innerCode) code = innerCode;
  // The failure's own message, else (but for axios) the inner error's.
  const message = textOf(e?.message) ?? (fromAxios ? null : textOf(inner?.message));
  return new ExchangeFailure(code, message ?? code ?? 'request failed');
}
