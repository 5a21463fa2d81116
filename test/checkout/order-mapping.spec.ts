import { DEFAULT_WIRE_PROFILE } from '../../src/gateway/wire-profile';
import { generateCnpj } from '@brazilian-utils/brazilian-utils';
import { CheckoutOptions, resolveCheckoutOptions } from '../../src/options/checkout.options';
import { CheckoutValidationError } from '../../src/core/invoice.errors';
import { httpAnswerOf } from '../../src/errors/http-answers';
import { invoiceReferrer, withReferrer } from '../../src/core/attempt-claim';
import { mapOrderToInvoice } from '../../src/checkout/order-mapping';
import type { CheckoutOrder, CheckoutRequest } from '../../src/core/checkout.types';

const NOON_UTC = new Date('2026-11-21T12:00:00Z');

function baseOrder(): CheckoutOrder {
  return {
    id: 'order_01',
    display_id: 1001,
    currency_code: 'brl',
    // 2 × 50.00 − 10.00 line discount + 19.90 − 5.00 order discount + 15.00 shipping
    total: 11990,
    items: [
      {
        id: 'item_1',
        title: 'Camiseta',
        thumbnail: 'https://cdn.example/camiseta.jpg',
        quantity: 2,
        unit_price: 5000,
        discount_total: 1000,
        requires_shipping: true,
      },
      { id: 'item_2', title: 'E-book', quantity: 1, unit_price: 1990, requires_shipping: false },
    ],
    shipping_total: 1500,
    discount_total: 1500,
    customer: {
      first_name: 'Maria',
      last_name: 'Silva',
      email: 'maria@example.com',
      phone: '(11) 98765-4321',
      document: '529.982.247-25',
    },
    shipping_address: {
      address_1: 'Rua das Flores, 123',
      address_2: 'Centro',
      city: 'São Paulo',
      province: 'sp',
      postal_code: '01310-100',
      country_code: 'br',
    },
    customer_ip: '203.0.113.7',
  };
}

type Mutation = (r: CheckoutRequest) => void;

function request(mutate: Mutation = () => undefined): CheckoutRequest {
  const r: CheckoutRequest = {
    amount: 11990,
    currency_code: 'brl',
    data: { order: baseOrder(), method: 'pix' },
  };
  mutate(r);
  return r;
}

const card: Mutation = (r) => {
  r.data.method = 'card';
  r.data.card = { token: 'tok_abc', expiry: '12/27', holder_name: 'MARIA SILVA' };
};

/** Checkout options, and the instant the mapping runs at (default {@link NOON_UTC}). */
type Options = CheckoutOptions & { now?: Date };

function map(mutate?: Mutation, { now = NOON_UTC, ...options }: Options = {}) {
  return mapOrderToInvoice(
    request(mutate),
    resolveCheckoutOptions(options),
    now.getTime(),
    DEFAULT_WIRE_PROFILE.timeZone,
  );
}

function fieldsOf(mutate: Mutation, options: Options = {}): Record<string, string[]> {
  try {
    map(mutate, options);
  } catch (err) {
    if (err instanceof CheckoutValidationError) return err.fields;
    throw err;
  }
  throw new Error('expected a CheckoutValidationError');
}

describe('mapOrderToInvoice: mapping rules (spec §4.2)', () => {
  const alnumCnpj = generateCnpj({ version: 2 });

  it.each<[string, Mutation, Options, (p: ReturnType<typeof map>['params']) => unknown, unknown]>([
    ['client.name from first and last name', () => undefined, {}, (p) => p.client.name, 'Maria Silva'],
    [
      'client.name from first and last name when name is blank',
      (r) => (r.data.order.customer.name = '  '),
      {},
      (p) => p.client.name,
      'Maria Silva',
    ],
    [
      'client.name from the last name alone when the first is blank',
      (r) => (r.data.order.customer.first_name = ' '),
      {},
      (p) => p.client.name,
      'Silva',
    ],
    [
      'client.name from name',
      (r) => (r.data.order.customer.name = 'Maria S.'),
      {},
      (p) => p.client.name,
      'Maria S.',
    ],
    ['client.document: CPF, digits only', () => undefined, {}, (p) => p.client.document, '52998224725'],
    [
      'client.document: numeric CNPJ, digits only',
      (r) => (r.data.order.customer.document = '11.222.333/0001-81'),
      {},
      (p) => p.client.document,
      '11222333000181',
    ],
    [
      'client.document: alphanumeric CNPJ accepted, upper-cased',
      (r) => (r.data.order.customer.document = alnumCnpj.toLowerCase()),
      {},
      (p) => p.client.document,
      alnumCnpj,
    ],
    ['client.email', () => undefined, {}, (p) => p.client.email, 'maria@example.com'],
    ['client.phone, digits only', () => undefined, {}, (p) => p.client.phone, '11987654321'],
    ['client.ip', () => undefined, {}, (p) => p.client.ip, '203.0.113.7'],
    [
      'client.address: number split from address_1, district from address_2, UF upper-cased, CEP digits, alpha-3',
      () => undefined,
      {},
      (p) => p.client.address,
      {
        street: 'Rua das Flores',
        number: '123',
        district: 'Centro',
        city: 'São Paulo',
        state: 'SP',
        zipcode: '01310100',
        country: 'BRA',
      },
    ],
    [
      'client.address: explicit number and district win',
      (r) =>
        Object.assign(r.data.order.shipping_address!, {
          address_1: 'Av. Paulista',
          number: '1000A',
          district: 'Bela Vista',
        }),
      {},
      (p) => [p.client.address?.street, p.client.address?.number, p.client.address?.district],
      ['Av. Paulista', '1000A', 'Bela Vista'],
    ],
    [
      'client.address: no number → S/N',
      (r) => (r.data.order.shipping_address!.address_1 = 'Estrada Velha'),
      {},
      (p) => p.client.address?.number,
      'S/N',
    ],
    [
      'client.address: the host overrides the mapping (alpha-3 accepted)',
      () => undefined,
      {
        mapAddress: (a) => ({
          street: a.address_1 ?? '',
          number: '77',
          district: 'Moema',
          city: a.city ?? '',
          state: 'SP',
          zipcode: '04077-000',
          country: 'BRA',
        }),
      },
      (p) => [p.client.address?.number, p.client.address?.district, p.client.address?.zipcode],
      ['77', 'Moema', '04077000'],
    ],
    [
      'international customer: no document needed, country converted',
      (r) => {
        delete r.data.order.customer.document;
        Object.assign(r.data.order.shipping_address!, {
          province: 'CA',
          postal_code: '94105',
          country_code: 'us',
        });
      },
      {},
      (p) => [p.client.document, p.client.address?.country, p.client.address?.state],
      [undefined, 'USA', 'CA'],
    ],
    [
      'digital-only order: no address required, physical false',
      (r) => {
        r.data.order.items.forEach((i) => (i.requires_shipping = false));
        r.data.order.shipping_address = null;
      },
      {},
      (p) => [p.payment.physical, p.client.address],
      [false, undefined],
    ],
    [
      'an item that requires shipping makes it physical',
      () => undefined,
      {},
      (p) => p.payment.physical,
      true,
    ],
    ['ecommerce absent unless configured', () => undefined, {}, (p) => p.ecommerce, undefined],
    [
      'ecommerce when configured',
      () => undefined,
      { ecommerce: { storeId: 42, checkout: 7 } },
      (p) => p.ecommerce,
      { storeId: 42, checkout: 7 },
    ],
    ['payment.id is the order id', () => undefined, {}, (p) => p.payment.id, 'order_01'],
    ['payment.referrer is <display id>-<attempt>', () => undefined, {}, (p) => p.payment.referrer, '1001-1'],
    [
      'payment.referrer from an explicit reference',
      (r) => (r.data.order.reference = 'PED-9'),
      {},
      (p) => p.payment.referrer,
      'PED-9-1',
    ],
    [
      'payment.referrer falls back to the order id',
      (r) => delete r.data.order.display_id,
      {},
      (p) => p.payment.referrer,
      'order_01-1',
    ],
    ['payment.due_at: today + 3 days by default', () => undefined, {}, (p) => p.payment.dueAt, '2026-11-24'],
    [
      'payment.due_at: configured days',
      () => undefined,
      { dueDays: 1 },
      (p) => p.payment.dueAt,
      '2026-11-22',
    ],
    [
      "payment.due_at: the store's today (23:30 in São Paulo is already tomorrow in UTC)",
      () => undefined,
      { now: new Date('2026-11-22T02:30:00Z') },
      (p) => p.payment.dueAt,
      '2026-11-24',
    ],
    [
      'payment.due_at: another time zone',
      () => undefined,
      { now: new Date('2026-11-22T02:30:00Z'), timeZone: 'UTC' },
      (p) => p.payment.dueAt,
      '2026-11-25',
    ],
    [
      "payment.due_at: never before the service's today (23:30 in Manaus is already tomorrow in São Paulo)",
      () => undefined,
      { now: new Date('2026-11-22T03:30:00Z'), timeZone: 'America/Manaus', dueDays: 0 },
      (p) => p.payment.dueAt,
      '2026-11-22',
    ],
    ['installments: 1 for PIX', () => undefined, {}, (p) => p.payment.installments, 1],
    [
      'installments: 1 for bank slip',
      (r) => (r.data.method = 'billet'),
      {},
      (p) => p.payment.installments,
      1,
    ],
    ['installments: card default 1', card, {}, (p) => p.payment.installments, 1],
    [
      'installments: card up to the maximum',
      (r) => {
        card(r);
        r.data.installments = 6;
      },
      { maxInstallments: 6 },
      (p) => p.payment.installments,
      6,
    ],
    [
      'order_url and store_url from templates, URL-encoded',
      (r) => (r.data.order.reference = 'A/1'),
      {
        orderUrlTemplate: 'https://shop.example/orders/{order_id}?ref={reference}',
        storeUrlTemplate: 'https://shop.example',
      },
      (p) => [p.payment.orderUrl, p.payment.storeUrl],
      ['https://shop.example/orders/order_01?ref=A%2F1', 'https://shop.example'],
    ],
    [
      'no urls unless configured',
      () => undefined,
      {},
      (p) => [p.payment.orderUrl, p.payment.storeUrl],
      [undefined, undefined],
    ],
    [
      'payment.webhook is the public webhook URL',
      () => undefined,
      { publicWebhookUrl: 'https://shop.example/invoice-payments/webhook' },
      (p) => p.payment.webhook,
      'https://shop.example/invoice-payments/webhook',
    ],
    [
      'payment.discount: the order-level part of discount_total',
      () => undefined,
      {},
      (p) => p.payment.discountCents,
      500,
    ],
    [
      'products: id, image, title, quantity, line discount, unit price',
      () => undefined,
      {},
      (p) => p.payment.products,
      [
        {
          id: 'item_1',
          image: 'https://cdn.example/camiseta.jpg',
          title: 'Camiseta',
          quantity: 2,
          discountCents: 1000,
          unitAmountCents: 5000,
        },
        { id: 'item_2', title: 'E-book', quantity: 1, discountCents: 0, unitAmountCents: 1990 },
      ],
    ],
    ['shipping.amount', () => undefined, {}, (p) => p.shippingCents, 1500],
    ['no card for PIX', () => undefined, {}, (p) => p.payment.card, undefined],
    [
      'payment.card for card',
      card,
      {},
      (p) => p.payment.card,
      { token: 'tok_abc', valid: '12/27', holderName: 'MARIA SILVA' },
    ],
    ['method', card, {}, (p) => p.payment.method, 'card'],
  ])('%s', (_title, mutate, options, pick, expected) => {
    expect(pick(map(mutate, options).params)).toEqual(expected);
  });

  it('reports the total and the reference, and sets the referrer of later attempts', () => {
    const mapped = map();
    expect(mapped.totalCents).toBe(11990);
    expect(mapped.reference).toBe('1001');
    expect(withReferrer(mapped.params, invoiceReferrer(mapped.reference, 3)).payment.referrer).toBe('1001-3');
    expect(mapped.params.payment.referrer).toBe('1001-1');
  });
});

describe('mapOrderToInvoice: bad input names the field', () => {
  const cases: Array<[string, Mutation, string, CheckoutOptions?]> = [
    ['missing document', (r) => delete r.data.order.customer.document, 'order.customer.document'],
    [
      'invalid CPF check digits',
      (r) => (r.data.order.customer.document = '529.982.247-24'),
      'order.customer.document',
    ],
    [
      'repeated-digit CPF',
      (r) => (r.data.order.customer.document = '111.111.111-11'),
      'order.customer.document',
    ],
    [
      'invalid CNPJ check digits',
      (r) => (r.data.order.customer.document = '11.222.333/0001-80'),
      'order.customer.document',
    ],
    [
      'invalid alphanumeric CNPJ',
      (r) => (r.data.order.customer.document = '12ABC34501DE36'),
      'order.customer.document',
    ],
    [
      'document of the wrong length',
      (r) => (r.data.order.customer.document = '1234567'),
      'order.customer.document',
    ],
    [
      'unknown UF',
      (r) => (r.data.order.shipping_address!.province = 'XX'),
      'order.shipping_address.province',
    ],
    [
      'malformed zipcode',
      (r) => (r.data.order.shipping_address!.postal_code = '0131-100'),
      'order.shipping_address.postal_code',
    ],
    [
      'zipcode with letters',
      (r) => (r.data.order.shipping_address!.postal_code = '01310-10A'),
      'order.shipping_address.postal_code',
    ],
    [
      'unknown country',
      (r) => (r.data.order.shipping_address!.country_code = 'XX'),
      'order.shipping_address.country_code',
    ],
    [
      'missing district',
      (r) => (r.data.order.shipping_address!.address_2 = null),
      'order.shipping_address.district',
    ],
    ['missing city', (r) => delete r.data.order.shipping_address!.city, 'order.shipping_address.city'],
    [
      'missing street',
      (r) => delete r.data.order.shipping_address!.address_1,
      'order.shipping_address.address_1',
    ],
    [
      'no address with a physical item',
      (r) => (r.data.order.shipping_address = null),
      'order.shipping_address',
    ],
    ['currency other than BRL (order)', (r) => (r.data.order.currency_code = 'usd'), 'order.currency_code'],
    ['currency other than BRL (amount)', (r) => (r.currency_code = 'USD'), 'currency_code'],
    [
      'expired card',
      (r) => {
        card(r);
        r.data.card!.expiry = '10/26';
      },
      'card.expiry',
    ],
    [
      'malformed card expiry',
      (r) => {
        card(r);
        r.data.card!.expiry = '13/30';
      },
      'card.expiry',
    ],
    ['card without card data', (r) => (r.data.method = 'card'), 'card'],
    [
      'card without token',
      (r) => {
        card(r);
        r.data.card!.token = ' ';
      },
      'card.token',
    ],
    [
      'card without holder',
      (r) => {
        card(r);
        r.data.card!.holder_name = '';
      },
      'card.holder_name',
    ],
    [
      'too many installments',
      (r) => {
        card(r);
        r.data.installments = 13;
      },
      'installments',
    ],
    ['installments on PIX', (r) => (r.data.installments = 2), 'installments'],
    ['method not enabled', (r) => (r.data.method = 'billet'), 'method', { methods: ['pix', 'card'] }],
    ['zero items', (r) => (r.data.order.items = []), 'order.items'],
    ['fractional cents', (r) => (r.data.order.items[0].unit_price = 50.5), 'order.items[0].unit_price'],
    ['zero quantity', (r) => (r.data.order.items[1].quantity = 0), 'order.items[1].quantity'],
    ['item without title', (r) => (r.data.order.items[1].title = ''), 'order.items[1].title'],
    [
      'line discount above the line',
      (r) => (r.data.order.items[1].discount_total = 2000),
      'order.items[1].discount_total',
    ],
    [
      'discount_total below the line discounts',
      (r) => (r.data.order.discount_total = 900),
      'order.discount_total',
    ],
    ['negative shipping', (r) => (r.data.order.shipping_total = -1), 'order.shipping_total'],
    ['totals that do not add up', (r) => (r.data.order.total = 11991), 'order.total'],
    [
      'zero total',
      (r) => {
        r.data.order.items = [
          { id: 'free', title: 'Brinde', quantity: 1, unit_price: 0, requires_shipping: false },
        ];
        Object.assign(r.data.order, { shipping_total: 0, discount_total: 0, total: 0 });
        r.amount = 0;
      },
      'order.total',
    ],
    ['amount other than the order total', (r) => (r.amount = 11000), 'amount'],
    [
      'international customer without e-mail',
      (r) => {
        delete r.data.order.customer.email;
        Object.assign(r.data.order.shipping_address!, {
          province: 'CA',
          postal_code: '94105',
          country_code: 'US',
        });
      },
      'order.customer.email',
    ],
    ['malformed e-mail', (r) => (r.data.order.customer.email = 'maria@'), 'order.customer.email'],
    ['malformed phone', (r) => (r.data.order.customer.phone = '123'), 'order.customer.phone'],
    ['malformed IP', (r) => (r.data.order.customer_ip = '300.1.1.1'), 'order.customer_ip'],
    ['missing order id', (r) => (r.data.order.id = ''), 'order.id'],
    [
      'first and last name only spaces',
      (r) => Object.assign(r.data.order.customer, { first_name: '  ', last_name: ' ' }),
      'order.customer.first_name',
    ],
    [
      'a name of spaces, no first or last name',
      (r) =>
        Object.assign(r.data.order.customer, { name: '   ', first_name: undefined, last_name: undefined }),
      'order.customer.name',
    ],
  ];
  const rows = cases.map(([title, mutate, field, options]) => ({ title, mutate, field, options }));
  it.each(rows)('$title → $field', ({ mutate, field, options }) => {
    const fields = fieldsOf(mutate, options);
    expect(Object.keys(fields)).toContain(field);
  });

  it('reports every problem at once, names them in the message and never echoes the values', () => {
    let error: unknown;
    try {
      map((r) => {
        r.data.order.customer.document = '529.982.247-24';
        r.data.order.shipping_address!.province = 'XX';
        r.data.order.items[0].quantity = 0;
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CheckoutValidationError);
    const e = error as CheckoutValidationError;
    expect(Object.keys(e.fields).sort()).toEqual([
      'order.customer.document',
      'order.items[0].quantity',
      'order.shipping_address.province',
    ]);
    expect(e.message).toContain('order.customer.document is not a valid CPF or CNPJ');
    expect(e.message).not.toContain('529');
    expect(httpAnswerOf(e)?.status).toBe(400);
  });

  it('refuses a request without an order', () => {
    expect(() =>
      mapOrderToInvoice(
        { amount: 1, currency_code: 'BRL', data: {} as never },
        resolveCheckoutOptions(),
        Date.now(),
        DEFAULT_WIRE_PROFILE.timeZone,
      ),
    ).toThrow(/order is required/);
  });
});

describe('resolveCheckoutOptions', () => {
  it.each<[CheckoutOptions, RegExp]>([
    [{ timeZone: 'Mars/Olympus' }, /checkout\.timeZone/],
    [{ maxInstallments: 0 }, /checkout\.maxInstallments/],
    [{ dueDays: 1.5 }, /checkout\.dueDays/],
    [{ methods: [] }, /checkout\.methods/],
    [{ orderUrlTemplate: 'shop/{order_id}' }, /checkout\.orderUrlTemplate/],
    [{ publicWebhookUrl: 'ftp://x' }, /checkout\.publicWebhookUrl/],
    [{ ecommerce: { storeId: 1.2, checkout: 1 } }, /checkout\.ecommerce\.storeId/],
  ])('refuses %p', (options, message) => {
    expect(() => resolveCheckoutOptions(options)).toThrow(message);
  });

  it('applies the defaults', () => {
    expect(resolveCheckoutOptions()).toMatchObject({
      methods: ['pix', 'billet', 'card'],
      dueDays: 3,
      timeZone: 'America/Sao_Paulo',
      maxInstallments: 12,
    });
  });
});
