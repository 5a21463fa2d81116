import { CheckoutValidationError } from '../../src/index';
import type { SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutScene, closeCheckoutScene, type CheckoutApp } from './support';

/**
 * What the service refuses is refused before anything is stored or sent, naming the order's field: an address
 * outside Brazil needs a postal code of 2 to 10 digits; an e-mail has no white space (`"maria silva"@example.com`).
 */
describeEachDatabase('checkout: customer input the service refuses', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: CheckoutApp;

  beforeAll(async () => {
    ({ db, sandbox, shop } = await openCheckoutScene(kind));
  });
  afterAll(() => closeCheckoutScene({ db, sandbox, shop }));

  it('a one-character postal code is refused naming order.shipping_address.postal_code, and nothing reaches the service', async () => {
    const order = makeOrder({
      customer: { first_name: 'John', last_name: 'Doe', email: 'john@example.com' },
      shipping_address: {
        address_1: '10 Downing Street, 10',
        district: 'Westminster',
        city: 'London',
        province: 'LN',
        postal_code: '1',
        country_code: 'GB',
      },
    });
    const error = await shop.provider.initiatePayment(checkout(order, 'pix')).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(CheckoutValidationError);
    expect((error as CheckoutValidationError).fields).toHaveProperty(['order.shipping_address.postal_code']);
    expect(await shop.invoicesAtService(order.id)).toBe(0);
  });

  it('an e-mail with a space is refused naming order.customer.email, and nothing reaches the service', async () => {
    const base = makeOrder();
    const order = makeOrder({ customer: { ...base.customer, email: '"maria silva"@example.com' } });
    const error = await shop.provider.initiatePayment(checkout(order, 'pix')).then(
      () => null,
      (err: unknown) => err,
    );
    const seen = { kind: (error as Error)?.constructor.name, message: (error as Error)?.message };
    expect(seen).toEqual({
      kind: 'CheckoutValidationError',
      message: expect.stringContaining('order.customer.email'),
    });
    expect((error as CheckoutValidationError).fields).toHaveProperty(['order.customer.email']);
    // Refused before the claim: no attempt row, nothing at the service.
    expect(await shop.records(order.id)).toHaveLength(0);
    expect(await shop.invoicesAtService(order.id)).toBe(0);
  });
});
