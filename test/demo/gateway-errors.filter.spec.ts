import type { ArgumentsHost } from '@nestjs/common';
import { PaymentBeingConfirmedError } from '../../src/index';
import { PaymentBeingConfirmedFilter } from '../../examples/demo-store/gateway-errors.filter';

describe('demo store: a payment being confirmed', () => {
  it('answers 409 with Retry-After in seconds and the retry time in the body', () => {
    const sent: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
    const response = {
      status(code: number) {
        sent.status = code;
        return response;
      },
      setHeader(name: string, value: string) {
        sent.headers[name] = value;
      },
      json(body: unknown) {
        sent.body = body;
      },
    };
    const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
    const error = new PaymentBeingConfirmedError('order_1', 'rec_1', 42, 'not found at the service yet');

    new PaymentBeingConfirmedFilter().catch(error, host);

    expect(sent.status).toBe(409);
    expect(sent.headers).toEqual({ 'Retry-After': '42' });
    expect(sent.body).toMatchObject({
      statusCode: 409,
      error: 'payment_being_confirmed',
      retry_after_seconds: 42,
      message: expect.stringMatching(/payment is being confirmed, retry in 42 s/),
    });
  });
});
