import { generateCnpj } from '@brazilian-utils/brazilian-utils';
import type { WireErrorBody } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { ADDRESS, call, createBody } from './helpers';

type Json = Record<string, unknown>;

describe('sandbox: invoice creation validation (§4.2, A3, A4, A6)', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    sandbox = await startSandbox({ clock: () => new Date('2026-11-21T13:00:00Z') });
  });
  afterAll(() => sandbox.close());

  const create = (body: unknown) =>
    call<WireErrorBody & WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', body);
  const count = async () =>
    (await call<WireInvoiceListResponse>(sandbox.url, 'GET', '/invoices')).body.pagination.total;

  /** Asserts a 422 naming `field`, and that nothing was stored. */
  async function rejects(body: unknown, field: string): Promise<void> {
    const before = await count();
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ success: false, error: true, code: 'validation_error' });
    expect(Object.keys(res.body.errors ?? {})).toContain(field);
    expect(res.body.message).toContain(field);
    expect(await count()).toBe(before);
  }

  it('answers 400 bad_request for a body that is not JSON, or not an object', async () => {
    for (const body of ['{not json', '[1,2]', '"text"', '']) {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('bad_request');
    }
  });

  it('requires client and payment', async () => {
    await rejects({ payment: createBody().payment as Json }, 'client');
    await rejects({ client: createBody().client as Json }, 'payment');
  });

  it('requires payment.type to be 1, 2 or 3', async () => {
    await rejects(createBody({ payment: { type: undefined } }), 'payment.type');
    await rejects(createBody({ payment: { type: 4 } }), 'payment.type');
    await rejects(createBody({ payment: { type: '1' } }), 'payment.type');
  });

  it('requires product_type to be 1 or 2', async () => {
    await rejects(createBody({ payment: { product_type: 3 } }), 'payment.product_type');
  });

  it('requires a CPF or CNPJ with valid check digits for domestic customers', async () => {
    await rejects(createBody({ client: { document: undefined } }), 'client.document');
    await rejects(createBody({ client: { document: '123.456.789-09' } }), 'client.document');
    await rejects(createBody({ client: { document: '12345678900' } }), 'client.document');
    await rejects(createBody({ client: { document: '1234567890' } }), 'client.document');
    const cnpj = await create(createBody({ client: { document: generateCnpj() } }));
    expect(cnpj.status).toBe(200);
    const alnum = await create(createBody({ client: { document: '12ABC34501DE35' } }));
    expect(alnum.status).toBe(200);
  });

  it('requires an e-mail, not a document, for international customers (A4)', async () => {
    const abroad = { ...ADDRESS, state: 'NY', zipcode: '10001', country: 'USA' };
    await rejects(
      createBody({ client: { document: undefined, email: undefined, address: abroad } }),
      'client.email',
    );
    await rejects(
      createBody({ client: { document: undefined, email: 'not-an-email', address: abroad } }),
      'client.email',
    );
    const ok = await create(
      createBody({ client: { document: undefined, email: 'joe@example.com', address: abroad } }),
    );
    expect(ok.status).toBe(200);
  });

  it('requires the whole address for physical goods (product_type 1)', async () => {
    await rejects(createBody({ payment: { product_type: 1 } }), 'client.address');
    for (const field of Object.keys(ADDRESS)) {
      const address: Json = { ...ADDRESS };
      delete address[field];
      await rejects(
        createBody({ client: { address }, payment: { product_type: 1 } }),
        `client.address.${field}`,
      );
    }
    const ok = await create(createBody({ client: { address: ADDRESS }, payment: { product_type: 1 } }));
    expect(ok.status).toBe(200);
  });

  it('checks the address formats: two-letter state, digit zipcode, three-letter country', async () => {
    const physical = (address: Json) =>
      createBody({ client: { address: { ...ADDRESS, ...address } }, payment: { product_type: 1 } });
    await rejects(physical({ state: 'SAO' }), 'client.address.state');
    await rejects(physical({ state: 'XX' }), 'client.address.state');
    await rejects(physical({ zipcode: '01310-100' }), 'client.address.zipcode');
    await rejects(physical({ country: 'BR' }), 'client.address.country');
  });

  it('checks the due date is a real YYYY-MM-DD day, not in the past', async () => {
    await rejects(createBody({ payment: { due_at: '2026-02-30' } }), 'payment.due_at');
    await rejects(createBody({ payment: { due_at: '21/12/2026' } }), 'payment.due_at');
    await rejects(createBody({ payment: { due_at: '2026-11-20' } }), 'payment.due_at');
    const ok = await create(createBody({ payment: { due_at: '2026-11-21' } }));
    expect(ok.body.invoice.due_at.day).toBe('2026-11-21 00:00:00');
  });

  it('checks products: qnt a positive integer, amount with at most two decimals', async () => {
    const product = (p: Json) =>
      createBody({ payment: { products: [{ id: '1', title: 'Mug', qnt: 1, amount: 10, ...p }] } });
    await rejects(product({ qnt: 0 }), 'payment.products[0].qnt');
    await rejects(product({ qnt: 1.5 }), 'payment.products[0].qnt');
    await rejects(product({ amount: 10.555 }), 'payment.products[0].amount');
    await rejects(product({ amount: '10.50' }), 'payment.products[0].amount');
    await rejects(product({ amount: -1 }), 'payment.products[0].amount');
    await rejects(product({ title: undefined }), 'payment.products[0].title');
    await rejects(product({ discount: 11 }), 'payment.products[0].discount');
    await rejects(createBody({ payment: { products: 'mug' } }), 'payment.products');
  });

  it('refuses a total of zero and a discount larger than the products', async () => {
    await rejects(
      createBody({ payment: { products: [{ id: '1', title: 'Free', qnt: 1, amount: 0 }] } }),
      'payment.products',
    );
    await rejects(createBody({ payment: { discount: 30 } }), 'payment.discount');
  });

  it('computes gross = Σ(amount × qnt − discount) − payment.discount + shipping, exactly', async () => {
    const res = await create(
      createBody({
        payment: {
          discount: 0.3,
          products: [
            { id: '1', title: 'A', qnt: 3, amount: 0.1, discount: 0.01 },
            { id: '2', title: 'B', qnt: 1, amount: 1234.56, discount: 0.2 },
          ],
        },
        shipping: { amount: 19.9 },
      }),
    );
    expect(res.status).toBe(200);
    // 0.30 − 0.01 + 1234.56 − 0.20 − 0.30 + 19.90 = 1254.25 (float arithmetic would not land exactly here)
    expect(res.body.invoice.amount).toMatchObject({ gross: 1254.25, discount: 0.51, shipping: '19.90' });
  });

  it('needs a card the sandbox tokenized, with a valid unexpired MM/YY, for card invoices', async () => {
    const { token } = sandbox.controls.createCardToken({
      number: '4111111111111111',
      holder: 'Ana',
      expiry: '12/30',
    });
    const card = (c: Json) =>
      createBody({
        payment: {
          type: 3,
          card: { saved: 0, tokenize: 0, token, valid: '12/30', holder: { name: 'Ana' }, ...c },
        },
      });
    await rejects(createBody({ payment: { type: 3 } }), 'payment.card');
    await rejects(card({ token: 'tok_forged' }), 'payment.card.token');
    await rejects(card({ valid: '13/30' }), 'payment.card.valid');
    await rejects(card({ valid: '10/26' }), 'payment.card.valid');
    await rejects(card({ holder: {} }), 'payment.card.holder.name');
    await rejects(createBody({ payment: { type: 1, installments: 3 } }), 'payment.installments');
    const cardBody = card({});
    await rejects(
      { ...cardBody, payment: { ...(cardBody.payment as Json), installments: 13 } },
      'payment.installments',
    );
    const ok = await create(card({}));
    expect(ok.status).toBe(200);
    expect(ok.body.invoice.card).toMatchObject({
      brand: 'visa',
      last4: '1111',
      bin: '411111',
      expire: '12/30',
    });
  });

  it('checks URLs and the customer IP', async () => {
    await rejects(createBody({ payment: { webhook: 'not a url' } }), 'payment.webhook');
    await rejects(createBody({ payment: { order_url: 'ftp://x.example' } }), 'payment.order_url');
    await rejects(createBody({ client: { ip: '300.1.1.1' } }), 'client.ip');
  });

  it('names every bad field in one answer', async () => {
    const res = await create({ client: { document: 'x' }, payment: { type: 9, due_at: 'soon' } });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors ?? {})).toEqual(
      expect.arrayContaining(['payment.type', 'client.document', 'payment.due_at']),
    );
  });
});

/**
 * A1's product discount is the sandbox's `productDiscount` option: `unit` stands in for a service that reads a
 * product's `discount` as each unit's, and counts gross and the discount's bound so.
 */
describe("sandbox: a product's discount read per unit (A1, `productDiscount: 'unit'`)", () => {
  let unit: SandboxServer;
  beforeAll(async () => {
    unit = await startSandbox({ productDiscount: 'unit' });
  });
  afterAll(() => unit?.close());

  const create = (products: Json[]) =>
    call<WireErrorBody & WireInvoiceCurrentResponse>(
      unit.url,
      'POST',
      '/invoices',
      createBody({ payment: { discount: 1, products } }),
    );

  it('computes gross = Σ(amount − discount) × qnt − payment.discount + shipping, and echoes each discount', async () => {
    const res = await create([
      { id: '1', title: 'A', qnt: 1, amount: 50, discount: 3.34 },
      { id: '1', title: 'A', qnt: 2, amount: 50, discount: 3.33 },
      { id: '2', title: 'B', qnt: 3, amount: 0.1, discount: 0.01 },
    ]);
    expect(res.status).toBe(200);
    // 150.00 − (3.34 + 6.66) + 0.30 − 0.03 − 1.00 = 139.27; read per line, 150.30 − 6.68 − 1.00 = 142.62
    expect(res.body.invoice.amount).toMatchObject({ gross: 139.27, discount: 11.03 });
    expect(res.body.invoice.products.map((p) => p.discount)).toEqual(['3.34', '3.33', '0.01']);
  });

  it("refuses a unit's discount above its price, naming the product's discount", async () => {
    const res = await create([{ id: '1', title: 'A', qnt: 3, amount: 10, discount: 10.01 }]);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors ?? {})).toEqual(['payment.products[0].discount']);
    const whole = [
      { id: '1', title: 'A', qnt: 3, amount: 10, discount: 10 },
      { id: '2', title: 'B', qnt: 1, amount: 5 },
    ];
    expect((await create(whole)).body.invoice.amount.gross).toBe(4);
  });

  it('refuses to start with another rule', async () => {
    await expect(startSandbox({ productDiscount: 'each' as never })).rejects.toThrow(
      'startSandbox: productDiscount "each" must be line or unit',
    );
  });
});
