import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Body, Controller, Module, Post } from '@nestjs/common';
import request from 'supertest';
import {
  CheckoutOrder,
  InitiatePaymentInput,
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoiceRecord,
  UpdatePaymentInput,
} from '../../src/index';
import { startSandbox, SandboxServer, TEST_CARDS } from '../../src/sandbox';
import { HostApp, RecordingOrderPort, SANDBOX_TOKEN, startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutDatabase } from './support';

/**
 * The host's checkout endpoint, as the README tells a store to write it: the provider's errors go out as they are,
 * answered by the module's filter registered app-wide.
 */
@Controller('shop')
class ShopController {
  constructor(private readonly payments: InvoicePaymentProvider) {}

  @Post('checkout')
  checkout(@Body() body: InitiatePaymentInput) {
    return this.payments.initiatePayment(body);
  }

  @Post('update')
  update(@Body() body: UpdatePaymentInput) {
    return this.payments.updatePayment(body);
  }

  @Post('status')
  status(@Body() body: { invoiceRecordId: unknown }) {
    return this.payments.getPaymentStatus({ data: { invoiceRecordId: body.invoiceRecordId as string } });
  }
}

/** A store app over HTTP on loopback, its module talking to `baseUrl`. */
async function startShop(db: TestDatabase, baseUrl: string): Promise<HostApp> {
  @Module({ controllers: [ShopController] })
  class ShopModule {}
  return startHostApp(
    db,
    [
      InvoicePaymentsModule.forRoot({
        gateway: { baseUrl, accessToken: SANDBOX_TOKEN, mode: 'sandbox', retry: { maxAttempts: 1 } },
        checkout: { unknownOutcomeRecheckMs: 300 },
        orderPort: RecordingOrderPort,
      }),
      ShopModule,
    ],
    // No filter registered by the host: the module's own (app-wide) answers the errors its controller lets out.
    { listen: true, logger: false },
  );
}

type Mutation = (input: InitiatePaymentInput & { data: { order: Record<string, unknown> } }) => void;
const order = (i: Parameters<Mutation>[0]) =>
  i.data.order as unknown as CheckoutOrder & Record<string, unknown>;
const long = (n: number) => 'x'.repeat(n);

/** Each hostile input, the field the 400 must name, and what it must say about it. */
const CASES: Array<[string, Mutation, string, RegExp]> = [
  [
    'a number as customer.name',
    (i) => void (order(i).customer.name = 42 as never),
    'order.customer.name',
    /string/,
  ],
  [
    'an object as customer.email',
    (i) => void (order(i).customer.email = {} as never),
    'order.customer.email',
    /string/,
  ],
  [
    'an array as customer.first_name',
    (i) => void (order(i).customer.first_name = ['a'] as never),
    'order.customer.first_name',
    /string/,
  ],
  [
    'a number as card.holder_name',
    (i) => void (i.data.card!.holder_name = 7 as never),
    'card.holder_name',
    /string/,
  ],
  [
    'a 300-character name',
    (i) => void (order(i).customer.name = long(300)),
    'order.customer.name',
    /at most 200/,
  ],
  [
    'a 300-character product title',
    (i) => void (order(i).items[0].title = long(300)),
    'order.items[0].title',
    /at most 250/,
  ],
  [
    'a 300-character street',
    (i) => void (order(i).shipping_address!.address_1 = long(300)),
    'order.shipping_address.address_1',
    /at most 200/,
  ],
  [
    'a 150-character reference',
    (i) => void (order(i).reference = long(150)),
    'order.reference',
    /at most 100/,
  ],
  ['a 200-character order id', (i) => void (order(i).id = long(200)), 'order.id', /at most 128/],
  [
    'a 200-character card holder',
    (i) => void (i.data.card!.holder_name = long(200)),
    'card.holder_name',
    /at most 120/,
  ],
  ['NUL in the order id', (i) => void (order(i).id = 'order_\u0000x'), 'order.id', /control characters/],
  [
    'NUL in the name',
    (i) => void (order(i).customer.name = 'Ana\u0000'),
    'order.customer.name',
    /control characters/,
  ],
  [
    'BEL in a title',
    (i) => void (order(i).items[0].title = 'Mug\u0007'),
    'order.items[0].title',
    /control characters/,
  ],
  [
    'CR/LF in the street',
    (i) => void (order(i).shipping_address!.address_1 = 'Rua A\r\nX: y'),
    'order.shipping_address.address_1',
    /control characters/,
  ],
  [
    'U+202E in the name',
    (i) => void (order(i).customer.name = 'Ana \u202Egpj.exe'),
    'order.customer.name',
    /control characters/,
  ],
  [
    'ESC in the city',
    (i) => void (order(i).shipping_address!.city = '\u001b[31mSP'),
    'order.shipping_address.city',
    /control characters/,
  ],
  [
    'ESC in the card holder',
    (i) => void (i.data.card!.holder_name = 'ANA\u001b'),
    'card.holder_name',
    /control characters/,
  ],
  // Red team after issue 23: amounts past a safe integer were a 500 (the "does not add up" message could not be
  // formatted) or, cancelling out, were sent; the order number beside a reference was stored unchecked.
  [
    'a unit price times quantity past Number.MAX_SAFE_INTEGER',
    (i) => void Object.assign(order(i).items[1], { unit_price: Number.MAX_SAFE_INTEGER, quantity: 2 }),
    'order.items[1].unit_price',
    /at most 10000000\.00 \(checkout\.maxTotalCents\)/,
  ],
  [
    'a quantity of Number.MAX_SAFE_INTEGER',
    (i) => void (order(i).items[1].quantity = Number.MAX_SAFE_INTEGER),
    'order.items[1].quantity',
    /times unit_price must be at most 10000000\.00 \(checkout\.maxTotalCents\)/,
  ],
  [
    'a shipping total of Number.MAX_SAFE_INTEGER',
    (i) => void (order(i).shipping_total = Number.MAX_SAFE_INTEGER),
    'order.shipping_total',
    /at most 10000000\.00/,
  ],
  [
    'huge amounts that cancel out exactly (2^52 × 2 − (2^53 − 100) = 100)',
    (i) => {
      const o = order(i);
      o.items = [{ id: 'a', title: 'A', quantity: 2, unit_price: 2 ** 52, requires_shipping: false }];
      Object.assign(o, { discount_total: 2 ** 53 - 100, shipping_total: 0, total: 100 });
      delete o.shipping_address;
      i.amount = 100;
    },
    'order.items[0].unit_price',
    /at most 10000000\.00/,
  ],
  [
    'a NUL byte in display_id beside a reference',
    (i) => void (order(i).display_id = '10\u000001'),
    'order.display_id',
    /control characters/,
  ],
  [
    'a display_id that is a fraction',
    (i) => void (order(i).display_id = 1.5),
    'order.display_id',
    /string or a non-negative integer/,
  ],
  // A bank slip carries the payer's name: a name blank after trimming is missing, like any other required text.
  [
    'first and last name only spaces',
    (i) => void Object.assign(order(i).customer, { first_name: '   ', last_name: ' ' }),
    'order.customer.first_name',
    /is required/,
  ],
  [
    'a name of no-break and em spaces, no first or last name',
    (i) =>
      void Object.assign(order(i).customer, { name: '\u00a0\u2003', first_name: null, last_name: undefined }),
    'order.customer.name',
    /is required/,
  ],
  [
    'no name at all',
    (i) => void Object.assign(order(i).customer, { first_name: undefined, last_name: undefined }),
    'order.customer.first_name',
    /is required/,
  ],
  [
    'a thumbnail that is not an http(s) URL',
    (i) => void (order(i).items[0].thumbnail = 'javascript:alert(1)'),
    'order.items[0].thumbnail',
    /http/,
  ],
];

describeEachDatabase(
  'hostile checkout input over HTTP: 400 naming the field, nothing sent or stored',
  (kind) => {
    let db: TestDatabase;
    let sandbox: SandboxServer;
    let shop: HostApp;
    const seen: string[] = [];

    beforeAll(async () => {
      db = await openCheckoutDatabase(kind);
      sandbox = await startSandbox({ log: (line) => seen.push(line) });
      shop = await startShop(db, sandbox.url);
    });
    afterAll(async () => {
      await shop?.close();
      await sandbox?.close();
      await db?.destroy();
    });

    const cardInput = () => {
      const token = sandbox.controls.createCardToken({
        number: TEST_CARDS.approved,
        holder: 'ANA',
        expiry: '12/30',
      });
      return checkout(makeOrder(), 'card', token) as Parameters<Mutation>[0];
    };

    it.each(CASES)('%s', async (_, mutate, field, problem) => {
      const input = cardInput();
      mutate(input);
      seen.length = 0;
      const before = await db.dataSource.getRepository(InvoiceRecord).count();

      const res = await request(shop.url).post('/shop/checkout').send(input);

      expect(res.status).toBe(400);
      expect(res.body.fields[field]).toEqual([expect.stringMatching(problem)]);
      expect(res.body.message).toContain(field);
      expect(seen.filter((line) => !line.startsWith('POST /_sandbox'))).toEqual([]); // nothing reached the service
      expect(await db.dataSource.getRepository(InvoiceRecord).count()).toBe(before); // nothing stored
    });

    it("a session's invoice record id with a NUL byte, of 200 characters or not a string: 400, never a database error", async () => {
      for (const id of ['\u0000', 'a'.repeat(200), 42, { $ne: null }]) {
        const res = await request(shop.url).post('/shop/status').send({ invoiceRecordId: id });
        expect(res.status).toBe(400);
        expect(Object.keys(res.body.fields)).toEqual(['data.invoiceRecordId']);
      }
    });

    it('updatePayment with card data that is not an object: 400 naming card, never a TypeError (500)', async () => {
      const first = await request(shop.url).post('/shop/checkout').send(checkout(makeOrder(), 'pix'));
      expect(first.status).toBe(201);
      const order = makeOrder();
      for (const card of ['tok_x', 42, true]) {
        seen.length = 0;
        const res = await request(shop.url)
          .post('/shop/update')
          .send({
            amount: order.total,
            currency_code: 'BRL',
            data: { invoiceRecordId: first.body.id, order, method: 'card', card },
          });
        expect([card, res.status]).toEqual([card, 400]);
        expect(res.body.fields).toEqual({ card: ['must be an object'] });
        expect(seen.filter((line) => !line.startsWith('POST /_sandbox'))).toEqual([]);
      }
    });

    it('the same order without the hostile part goes through (the cases fail for their one reason)', async () => {
      const res = await request(shop.url).post('/shop/checkout').send(cardInput());
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({ creationState: 'created', method: 'card' });
    });

    it('the service answering 503 to everything: 503 with a plain message, no internal details', async () => {
      sandbox.controls.addFault({ method: 'POST', path: '/invoices', status: 503, times: 1 });
      sandbox.controls.addFault({ method: 'GET', path: '/invoices', status: 503, times: 3 });
      const input = checkout(makeOrder(), 'pix');
      const res = await request(shop.url).post('/shop/checkout').send(input);
      expect(res.status).toBe(503);
      expect(res.body.message).toMatch(/being confirmed, retry in \d+ s .*service.*unavailable/);
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|ECONN|sandbox-token/);
      sandbox.controls.clearFaults();
    });
  },
);

describeEachDatabase('the service unreachable at checkout', (kind) => {
  let db: TestDatabase;
  let shop: HostApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    // A port that was just free: nothing listens there, the connection is refused.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    shop = await startShop(db, `http://127.0.0.1:${port}`);
  });
  afterAll(async () => {
    await shop?.close();
    await db?.destroy();
  });

  it('answers 502 with a plain message: no address, no system error; the order may try again', async () => {
    const input = checkout(makeOrder(), 'pix');
    const res = await request(shop.url).post('/shop/checkout').send(input);
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      statusCode: 502,
      error: 'payment_service_network',
      message: 'The payment service could not be reached. Nothing was charged; try again in a moment.',
    });
    const [record] = await db.dataSource
      .getRepository(InvoiceRecord)
      .find({ where: { orderId: input.data.order.id } });
    expect(record).toMatchObject({ creationState: 'failed', openOrderId: null });
  });
});
