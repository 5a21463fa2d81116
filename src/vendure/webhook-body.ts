import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import type { ResolvedWebhooksOptions } from '../options/webhooks.options';
import { tooLarge, type Refusal } from '../webhooks/delivery-checks';
import { answerOf } from '../webhooks/webhooks.controller';

/*
 * The webhook route's body parser in Vendure. Vendure's global JSON parser stops at Express' 100 KB, and its exception
 * filter answers the parser's "too large" error with a 500, which the service would retry as a failure. Mounted on the
 * route before Vendure's parser (Vendure's `beforeListen` route middleware), this one reads the JSON body up to
 * `webhooks.bodyLimitBytes` and answers a larger one 413 itself. The bytes go on as the body: the intake parses them
 * once, within its bounds (malformed JSON 400, too deep 400), as it does for a host that kept the raw body.
 */

type ParsedRequest = IncomingMessage & { body?: unknown };
type Next = (err?: unknown) => void;

/** Express middleware for `apiOptions.middleware`: the webhook route's JSON body as bytes, at most the module's limit. */
export function webhookBodyReader(options: ResolvedWebhooksOptions) {
  const limit = options.bodyLimitBytes;
  return function invoicePaymentsWebhookBody(req: ParsedRequest, res: ServerResponse, next: Next): void {
    if (req.method !== 'POST' || !isJson(req.headers['content-type'])) return next();
    // A declared length past the limit is answered at once, unread; a body in chunks, once it passes the limit.
    const declared = tooLarge(Number(req.headers['content-length']) || 0, options);
    if (declared) return refuse(req, res, declared);
    getRawBody(req, { limit }).then(
      (bytes) => {
        // The host's JSON parser (body-parser) passes over a request whose body is read.
        req.body = bytes;
        next();
      },
      (err: { type?: string }) =>
        refuse(req, res, err.type === 'entity.too.large' ? tooLarge(limit + 1, options)! : UNREADABLE),
    );
  };
}

const UNREADABLE: Refusal = { ok: false, status: 400, message: 'body: could not be read' };

/** Answered as the route answers a refusal; the unread rest is read off and dropped, so a sender still writing hears it. */
function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
  req.resume();
  const { status, body } = answerOf(refusal);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(body));
}

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}
