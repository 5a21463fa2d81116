import {
  CheckoutValidationError,
  InvoiceCreationUnresolvedError,
  InvoiceRecordNotFoundError,
  PaymentServiceError,
} from '../core/invoice.errors';
import { GatewayNetworkError, GatewayStateConflictError } from '../gateway/errors';
import { RefundInProgressError } from '../refunds/errors';
import type { InvoiceRefund } from '../refunds/refund.entity';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { toMedusaError, webhookActionOfRecord } from './runtime';

/** Medusa's `MedusaError`, as far as the adapter uses it. */
class MedusaError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const ctx = { operation: 'cancelInvoice', sent: true };

describe("the module's errors as Medusa's", () => {
  it.each([
    ['bad input, its fields', new CheckoutValidationError({ 'order.id': ['is required'] }), 'invalid_data'],
    ['an unknown session', new InvoiceRecordNotFoundError('rec_1'), 'not_found'],
    [
      'a creation not settled, even while the service cannot be asked',
      new InvoiceCreationUnresolvedError('o', 'd', true),
      'not_allowed',
    ],
    [
      'a refund in flight',
      new RefundInProgressError('rec_1', {
        id: 'rf',
        amountCents: 1,
        state: 'sending',
      } as unknown as InvoiceRefund),
      'not_allowed',
    ],
    ['the service refusing the state', new GatewayStateConflictError(ctx, 'already paid'), 'not_allowed'],
  ])('%s: by its code', (_, error, type) => {
    const mapped = toMedusaError(error, MedusaError);
    expect(mapped).toBeInstanceOf(MedusaError);
    expect(mapped).toMatchObject({ type, cause: error });
  });

  it('names the fields of bad input, and keeps other messages', () => {
    const fields = toMedusaError(new CheckoutValidationError({ 'order.id': ['is required'] }), MedusaError);
    expect((fields as Error).message).toBe('order.id is required');
    expect((toMedusaError(new InvoiceRecordNotFoundError('rec_1'), MedusaError) as Error).message).toBe(
      'No invoice record rec_1',
    );
  });

  it("the service's own trouble stays an error, with the plain sentence", () => {
    const down = new GatewayNetworkError(ctx, 'connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED');
    const mapped = toMedusaError(down, MedusaError);
    expect(mapped).toBeInstanceOf(PaymentServiceError);
    expect(mapped).toMatchObject({
      gatewayError: down,
      message: expect.stringMatching(/could not be reached/),
    });
    const other = new Error('boom');
    expect(toMedusaError(other, MedusaError)).toBe(other);
  });
});

describe("a record's action on Medusa's session of the order", () => {
  const paid = { id: 'rec_2', orderId: 'ord_1', statusCode: 5, paidCents: 1348, amountCents: 1348 };
  const record = (fields: Partial<InvoiceRecord>) =>
    ({ amountMismatch: false, duplicateOf: null, ...paid, ...fields }) as InvoiceRecord;

  it("a paid invoice captures the order's session, in major units", () => {
    expect(webhookActionOfRecord(record({}))).toEqual({
      action: 'captured',
      data: { session_id: 'ord_1', amount: 13.48 },
    });
  });

  it("a duplicate invoice, paid or authorized, moves nothing: the order's session is not its own", () => {
    expect(webhookActionOfRecord(record({ duplicateOf: 'rec_1' }))).toEqual({ action: 'not_supported' });
    expect(webhookActionOfRecord(record({ duplicateOf: 'rec_1', statusCode: 4 }))).toEqual({
      action: 'not_supported',
    });
  });
});
