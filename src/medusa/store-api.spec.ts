import type { DataSource } from 'typeorm';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { cartIdProblem, cartPaymentRecord, withCheckoutCart } from './store-api';

/** A request scope whose `query.graph` answers `rows` and records what it was asked. */
function scopeAnswering(rows: unknown[]) {
  const asked: Array<Record<string, unknown>> = [];
  const query = {
    graph: async (input: Record<string, unknown>) => {
      asked.push(input);
      return { data: rows };
    },
  };
  return { asked, scope: { resolve: <T>() => query as T } };
}

const maria = {
  id: 'cart_1',
  email: 'maria@example.com',
  billing_address: { first_name: 'Maria', last_name: 'Souza' },
};

describe("the plugin's middleware on Medusa's payment-session route", () => {
  async function run(body: Record<string, unknown>, rows: unknown[] = [{ id: 'pay_col_1', cart: maria }]) {
    const { asked, scope } = scopeAnswering(rows);
    const req = { scope, params: { id: 'pay_col_1' }, body };
    let passed: unknown = 'not called';
    await withCheckoutCart(req, {}, (err) => (passed = err));
    return { body: req.body, asked, passed };
  }

  it("puts the collection's cart in data.cart, over what the storefront sent there", async () => {
    const { body, asked, passed } = await run({
      provider_id: 'pp_invoice-payments_br',
      data: { method: 'pix', cart: { email: 'forged@example.com' } },
    });
    expect(passed).toBeUndefined();
    expect(asked[0]).toMatchObject({ entity: 'payment_collection', filters: { id: 'pay_col_1' } });
    // Only what the payer needs of the cart: its e-mail, and its addresses' names and phone.
    expect((asked[0].fields as string[]).filter((f) => f.includes('address')).sort()).toEqual([
      'cart.billing_address.first_name',
      'cart.billing_address.last_name',
      'cart.billing_address.phone',
      'cart.shipping_address.first_name',
      'cart.shipping_address.last_name',
      'cart.shipping_address.phone',
    ]);
    expect(body.data).toEqual({ method: 'pix', cart: { ...maria, shipping_address: null } });
  });

  it('a collection without a cart (an order edit) gets data.cart null', async () => {
    const { body } = await run({ provider_id: 'pp_invoice-payments_br' }, [{ id: 'pay_col_1', cart: null }]);
    expect(body.data).toEqual({ cart: null });
  });

  it("leaves other providers' sessions and bodies Medusa will refuse as they came, asking nothing", async () => {
    for (const sent of [
      { provider_id: 'pp_stripe_stripe', data: { cart: 'x' } },
      { provider_id: 'pp_invoice-payments_br', data: ['not', 'a', 'record'] },
    ]) {
      const { body, asked, passed } = await run({ ...sent });
      expect(body).toEqual(sent);
      expect(asked).toEqual([]);
      expect(passed).toBeUndefined();
    }
  });

  it("hands a failed lookup to Medusa's error handler", async () => {
    const req = {
      scope: { resolve: () => ({ graph: () => Promise.reject(new Error('db down')) }) },
      params: { id: 'pay_col_1' },
      body: { provider_id: 'pp_invoice-payments_br', data: {} },
    };
    let passed: unknown;
    await withCheckoutCart(req as never, {}, (err) => (passed = err));
    expect(passed).toEqual(new Error('db down'));
  });
});

describe("the cart's payment for the status route", () => {
  const ours = { id: 'payses_2', provider_id: 'pp_invoice-payments_br', created_at: '2026-11-29T10:00:00Z' };
  const cart = (extra: Record<string, unknown> = {}, sessions: unknown[] = [ours]) => ({
    id: 'cart_1',
    customer_id: 'cus_1',
    payment_collection: { payment_sessions: sessions },
    ...extra,
  });
  const record = { id: 'rec_2', orderId: 'payses_2' } as InvoiceRecord;
  const dataSource = {
    getRepository: () => ({
      findOne: async ({ where }: { where: { id: string } }) => (where.id === record.id ? record : null),
    }),
  } as unknown as DataSource;

  async function find(row: unknown, actor?: string) {
    return cartPaymentRecord(scopeAnswering(row ? [row] : []).scope, dataSource, 'cart_1', actor);
  }

  it("finds the record the session's data names, for the guest and for the cart's own customer", async () => {
    const withData = [{ ...ours, data: { invoiceRecordId: 'rec_2' } }];
    await expect(find(cart({}, withData))).resolves.toBe(record);
    await expect(find(cart({}, withData), 'cus_1')).resolves.toBe(record);
  });

  it('answers nothing for another signed-in customer, no cart, no session of ours, or a record of another session', async () => {
    const withData = (id: string, recordId = 'rec_2') => [
      { ...ours, id, data: { invoiceRecordId: recordId } },
    ];
    await expect(find(cart({}, withData('payses_2')), 'cus_other')).resolves.toBeNull();
    await expect(find(null)).resolves.toBeNull();
    await expect(
      find(cart({}, [{ ...ours, provider_id: 'pp_system_default', data: { invoiceRecordId: 'rec_2' } }])),
    ).resolves.toBeNull();
    await expect(find(cart({}, withData('payses_9')))).resolves.toBeNull();
    await expect(find(cart({}, withData('payses_2', 'rec_x')))).resolves.toBeNull();
  });

  it.each([['x'.repeat(65)], [''], ['cart 1'], ['../admin'], [42]])('refuses %p as a cart id', (id) => {
    expect(cartIdProblem(id)).toMatch(/must be a Medusa cart id/);
  });
});
