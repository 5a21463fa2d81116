import type { ArgumentsHost } from '@nestjs/common';
import {
  CheckoutValidationError,
  InvoiceCreationUnresolvedError,
  InvoiceRecordNotFoundError,
  isUpstreamFailure,
  PaymentBeingConfirmedError,
  PaymentServiceError,
  InvalidStatusReportError,
} from '../core/invoice.errors';
import {
  GatewayError,
  GatewayErrorKind,
  GatewayNetworkError,
  GatewayRateLimitError,
  GatewayValidationError,
} from '../gateway/errors';
import type { InvoiceRefund } from '../refunds/refund.entity';
import { RefundBeingConfirmedError } from '../refunds/errors';
import { ShipmentValidationError } from '../domain/shipping.errors';
import { GATEWAY_ERROR_HTTP_STATUS, httpAnswerOf } from './http-answers';
import { InvoicePaymentsErrorsFilter } from './http-answers';

const ctx = { operation: 'createInvoice', sent: false };
const refund = { id: 'rf_1', amountCents: 700, state: 'unknown', createdAt: new Date(0) } as InvoiceRefund;

/** The answer as the bytes a host sends: status, then the JSON body in its key order. */
const wire = (error: unknown) => {
  const answer = httpAnswerOf(error);
  return answer && `${answer.status} ${JSON.stringify(answer.body)}`;
};

describe('the HTTP answers of the module errors', () => {
  it('keeps the bodies Nest gave them when they were HTTP exceptions, key order included', () => {
    expect(wire(new CheckoutValidationError({ 'order.id': ['is required'] }))).toBe(
      '400 {"statusCode":400,"error":"Bad Request","message":"Invalid checkout input: order.id is required",' +
        '"fields":{"order.id":["is required"]}}',
    );
    expect(wire(new InvoiceRecordNotFoundError('rec_1'))).toBe(
      '404 {"message":"No invoice record rec_1","error":"Not Found","statusCode":404}',
    );
    expect(wire(new InvoiceCreationUnresolvedError('o_1', 'lookup failed', true))).toBe(
      '503 {"statusCode":503,"error":"Service Unavailable","message":"The invoice of order o_1 is not settled yet: lookup failed"}',
    );
    expect(wire(new RefundBeingConfirmedError('rec_1', refund, 30))).toMatch(
      /^409 \{"statusCode":409,"error":"refund_being_confirmed","message":".*","refundId":"rf_1","refundState":"unknown","retryAfterSeconds":30\}$/,
    );
  });

  it('presents a gateway error as the shopper may see it: the plain sentence, never the address', () => {
    const network = new GatewayNetworkError(ctx, 'connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED');
    expect(wire(network)).toBe(
      '502 {"statusCode":502,"error":"payment_service_network","message":' +
        '"The payment service could not be reached. Nothing was charged; try again in a moment."}',
    );
    const refused = new GatewayValidationError(ctx, 'amount: too small', { amount: ['too small'] });
    expect(httpAnswerOf(refused)).toEqual({
      status: 400,
      body: { statusCode: 400, error: 'payment_service_validation', message: refused.message },
    });
    expect(httpAnswerOf(new PaymentServiceError(refused))).toEqual(httpAnswerOf(refused));
  });

  it('says when to retry where the error does', () => {
    expect(httpAnswerOf(new GatewayRateLimitError(ctx, 'slow down', 2500))).toMatchObject({
      status: 503,
      retryAfterSeconds: 3,
    });
    expect(httpAnswerOf(new PaymentBeingConfirmedError('o_1', 'rec_1', 7, 'lost'))).toMatchObject({
      status: 409,
      retryAfterSeconds: 7,
    });
    expect(httpAnswerOf(new InvoiceRecordNotFoundError('rec_1'))).not.toHaveProperty('retryAfterSeconds');
  });

  it('names the field of a refused shipment, and hides a report the module built wrong', () => {
    expect(httpAnswerOf(new ShipmentValidationError('trackingCode', 'is required'))).toEqual({
      status: 400,
      body: {
        statusCode: 400,
        error: 'Bad Request',
        message: 'trackingCode: is required',
        field: 'trackingCode',
      },
    });
    expect(wire(new InvalidStatusReportError('code', 'must be an integer'))).toBe(
      '500 {"statusCode":500,"message":"Internal server error"}',
    );
  });

  it('answers nothing for errors that are not the module’s', () => {
    expect(httpAnswerOf(new Error('boom'))).toBeNull();
    expect(httpAnswerOf('text')).toBeNull();
  });

  it('gives a 5xx exactly to the kinds that are the service’s own trouble', () => {
    for (const kind of Object.keys(GATEWAY_ERROR_HTTP_STATUS) as GatewayErrorKind[]) {
      const error = Object.assign(Object.create(GatewayError.prototype) as GatewayError, { kind });
      expect([kind, isUpstreamFailure(error)]).toEqual([kind, GATEWAY_ERROR_HTTP_STATUS[kind] >= 500]);
    }
  });
});

describe('InvoicePaymentsErrorsFilter', () => {
  function hostOf(response: object, type = 'http') {
    return { getType: () => type, switchToHttp: () => ({ getResponse: () => response }) } as ArgumentsHost;
  }

  it('writes the status, Retry-After and the body on an Express response', () => {
    const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
    const response = {
      status: (code: number) => (sent.status = code),
      setHeader: (name: string, value: string) => (sent.headers[name] = value),
      json: (body: unknown) => (sent.body = body),
    };
    const error = new PaymentBeingConfirmedError('o_1', 'rec_1', 4, 'lost', true);
    new InvoicePaymentsErrorsFilter().catch(error, hostOf(response));
    expect(sent).toEqual({
      status: 503,
      headers: { 'Retry-After': '4' },
      body: { statusCode: 503, error: 'Service Unavailable', message: error.message },
    });
  });

  it('writes on a Fastify reply (header, send)', () => {
    const sent: { status?: number; body?: unknown } = {};
    const reply = {
      status: (code: number) => (sent.status = code),
      header: () => reply,
      send: (b: unknown) => (sent.body = b),
    };
    new InvoicePaymentsErrorsFilter().catch(new InvoiceRecordNotFoundError('rec_1'), hostOf(reply));
    expect(sent).toEqual({
      status: 404,
      body: { message: 'No invoice record rec_1', error: 'Not Found', statusCode: 404 },
    });
  });

  it('throws the error on unchanged outside HTTP', () => {
    const error = new InvoiceRecordNotFoundError('rec_1');
    expect(() => new InvoicePaymentsErrorsFilter().catch(error, hostOf({}, 'graphql'))).toThrow(error);
  });
});
