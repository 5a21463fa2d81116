import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { PaymentServiceError } from '../core/invoice.errors';
import { GatewayError, isGatewayError } from '../gateway/errors';
import { InvoicePaymentsError, type InvoicePaymentsErrorCode } from '../domain/invoice-payments.error';

/**
 * The HTTP status of each gateway error kind: a refusal of the request keeps its meaning (400, 404, 409); a failure
 * of the service or of the store's credential there is the upstream's fault (502, 503, 504).
 */
export const GATEWAY_ERROR_HTTP_STATUS: Readonly<Record<GatewayError['kind'], number>> = {
  validation: 400,
  not_found: 404,
  state_conflict: 409,
  mode: 409,
  unsupported: 501,
  authentication: 502,
  scope: 502,
  rate_limit: 503,
  unavailable: 502,
  timeout: 504,
  network: 502,
  // The service may have acted: the caller must not assume either way (the checkout looks it up).
  outcome_unknown: 504,
  response: 502,
};

/** An error as an HTTP answer: status, JSON body, and the `Retry-After` seconds when the error says when. */
export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfterSeconds?: number;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 409: 'Conflict' };

/** Nest's own body for an exception made from a message. */
function plain(status: number) {
  return (e: InvoicePaymentsError): HttpAnswer => ({
    status,
    body: { message: e.message, error: REASONS[status], statusCode: status },
  });
}

/** `{ statusCode, error, message }` and what `extra` adds. */
function answer(status: number, error: string, e: InvoicePaymentsError, extra = {}): HttpAnswer {
  return { status, body: { statusCode: status, error, message: e.message, ...extra } };
}

const withFields = (e: InvoicePaymentsError): HttpAnswer =>
  answer(400, 'Bad Request', e, { fields: e.details.fields });

/** Not settled yet: 409, or 503 when the service is what could not be asked. */
const unresolved = (e: InvoicePaymentsError): HttpAnswer =>
  e.details.serviceUnavailable ? answer(503, 'Service Unavailable', e) : answer(409, 'Conflict', e);

const refund = (e: InvoicePaymentsError): HttpAnswer => answer(409, e.code, e, e.details);

/** The answer of each module error code: the codes are these keys. */
export const ANSWERS = {
  checkout_validation: withFields,
  invoice_creation_failed: withFields,
  open_invoice_conflict: plain(409),
  operation_not_allowed: plain(409),
  invoice_creation_unresolved: unresolved,
  payment_being_confirmed: unresolved,
  invoice_creation_needs_attention: unresolved,
  invoice_number_clash: plain(409),
  invoice_record_not_found: plain(404),
  payment_service: (e) => {
    const kind = e.details.kind as GatewayError['kind'];
    return answer(GATEWAY_ERROR_HTTP_STATUS[kind], `payment_service_${kind}`, e);
  },
  refund_in_progress: refund,
  refund_being_confirmed: refund,
  refund_failed: refund,
  refund_repeated: refund,
  shipment_validation: (e) => answer(400, 'Bad Request', e, { field: e.details.field }),
  order_not_paid: plain(409),
  reported_record_not_found: plain(404),
  // The record moved meanwhile (linked to another invoice, or settled): the write it refused left nothing.
  creation_move_refused: plain(409),
  // The shopper's status route (docs/storefront-routes.md).
  status_token_invalid: withFields,
  shopper_payment_not_found: plain(404),
  shopper_rate_limited: (e) => answer(429, 'Too Many Requests', e),
  renewal_not_offered: plain(409),
  renewal_outcome_unknown: (e) => answer(503, 'Service Unavailable', e),
  // The module built a wrong report: nothing the caller did, and nothing to tell them.
  invalid_status_report: () => ({ status: 500, body: { statusCode: 500, message: 'Internal server error' } }),
} satisfies Record<InvoicePaymentsErrorCode, (e: InvoicePaymentsError) => HttpAnswer>;

/** The HTTP answer of a module or gateway error (as the shopper's {@link PaymentServiceError}); else `null`. */
export function httpAnswerOf(error: unknown): HttpAnswer | null {
  const domain = isGatewayError(error) ? new PaymentServiceError(error) : error;
  if (!(domain instanceof InvoicePaymentsError)) return null;
  const answer = ANSWERS[domain.code](domain);
  const seconds = domain.details.retryAfterSeconds;
  return typeof seconds === 'number' ? { ...answer, retryAfterSeconds: seconds } : answer;
}

/** An Express (`setHeader`/`json`) or Fastify (`header`/`send`) response. */
interface HttpResponse {
  status(code: number): unknown;
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
  json?(body: unknown): unknown;
  send?(body: unknown): unknown;
}

export function setResponseHeader(response: Partial<HttpResponse>, name: string, value: string): void {
  if (response.setHeader) response.setHeader(name, value);
  else response.header?.(name, value);
}

export function sendHttpAnswer(response: HttpResponse, answer: HttpAnswer): void {
  if (answer.retryAfterSeconds !== undefined) {
    setResponseHeader(response, 'Retry-After', String(answer.retryAfterSeconds));
  }
  response.status(answer.status);
  if (response.json) response.json(answer.body);
  else response.send?.(answer.body);
}

/**
 * The module's errors and `GatewayError`s as HTTP answers (400 with `fields`, 404, 409, 502/503/504 with
 * `Retry-After` when known). Register it app-wide (`app.useGlobalFilters(new InvoicePaymentsErrorsFilter())`);
 * outside HTTP the error is rethrown unchanged. A host's filter can extend it and use `answerOf`.
 */
@Catch(InvoicePaymentsError, GatewayError)
export class InvoicePaymentsErrorsFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const answer = host.getType() === 'http' ? this.answerOf(error) : null;
    if (!answer) throw error;
    sendHttpAnswer(host.switchToHttp().getResponse<HttpResponse>(), answer);
  }

  /** The status, body and `Retry-After` seconds of a module or gateway error; else `null`. */
  answerOf(error: unknown): HttpAnswer | null {
    return httpAnswerOf(error);
  }
}
