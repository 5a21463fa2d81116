import { statusTokenHash } from '../../src/checkout/status-token';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import {
  CheckoutValidationError,
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoiceRecord,
  OrderPaymentPort,
  PaymentStatusChange,
  sessionDataOf,
} from '../../src/index';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { CLOCK } from '../../src/domain/clock';
import { HostApp, startHostApp } from '../support/app';
import { ManualClock } from '../support/clock';
import { databaseKinds, describeEachDatabase, DatabaseKind, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutDatabase, sandboxGateway } from './support';

/** A host's order port as stores write it: one UPDATE of its own order row per change. */
@Injectable()
class UpdatingOrderPort implements OrderPaymentPort {
  readonly changes: PaymentStatusChange[] = [];
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    const postgres = this.dataSource.options.type === 'postgres';
    await this.dataSource.query(
      postgres
        ? 'UPDATE host_orders SET payment_status = $1 WHERE id = $2'
        : 'UPDATE host_orders SET payment_status = ? WHERE id = ?',
      [change.current.orderPaymentStatus, change.orderId],
    );
    this.changes.push(change);
  }
}

/** Every statement the process sends to PostgreSQL while counting (as `bench/sql-count.ts` counts them). */
const sent: string[] = [];
let counting = false;
const query = Client.prototype.query as (...args: unknown[]) => unknown;
beforeAll(() => {
  (Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
    this: Client,
    ...args: unknown[]
  ) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
    if (counting) sent.push(String(text).replace(/\s+/g, ' ').trim());
    return query.apply(this, args);
  };
});
afterAll(() => {
  (Client.prototype as unknown as { query: unknown }).query = query;
});

async function startShop(db: TestDatabase, sandbox: SandboxServer): Promise<HostApp> {
  await db.dataSource.query(
    'CREATE TABLE IF NOT EXISTS host_orders (id varchar(128) PRIMARY KEY, payment_status varchar(32))',
  );
  // No background workers: what is counted is the checkout's own work, the delivery to the host included. The
  // module's clock stands still, so the claim's headroom always covers its request: a busy machine that stalls
  // between the two adds a write that moves settlesAt on (settle-statement.e2e counts that path), not a regression.
  return startHostApp(
    db,
    [
      InvoicePaymentsModule.forRoot({
        gateway: sandboxGateway(sandbox.url),
        orderPort: UpdatingOrderPort,
        workers: false,
      }),
    ],
    { overrides: [[CLOCK, new ManualClock()]] },
  );
}

/** One checkout of a new PIX order, until its first status reached the host's port. */
async function payNewOrder(app: HostApp['app'], db: TestDatabase) {
  const order = makeOrder();
  await db.dataSource.query(
    db.kind === 'postgres'
      ? 'INSERT INTO host_orders (id) VALUES ($1)'
      : 'INSERT INTO host_orders (id) VALUES (?)',
    [order.id],
  );
  const out = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
  await app.get(StatusChangeDispatcher).drain();
  return { order, out };
}

describeEachDatabase('checkout: the claim and the session from what was written', (kind: DatabaseKind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: HostApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    shop = await startShop(db, sandbox);
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('answers exactly what the database then holds, and the host heard the first status', async () => {
    const { order, out } = await payNewOrder(shop.app, db);
    const stored = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id: out.id });
    // And the status token, of which the record holds the hash only.
    const { statusToken, ...session } = out.data;
    expect(session).toEqual(sessionDataOf(stored));
    expect(stored.statusTokenHash).toBe(statusTokenHash(statusToken!));
    expect(out.data).toMatchObject({ attempt: 1, creationState: 'created', statusCode: 1 });
    expect(out.data.pix?.payload).toEqual(expect.any(String));
    expect(stored).toMatchObject({ version: 2, settlesAt: expect.any(Date), openOrderId: order.id });
    const [row] = (await db.dataSource.query(
      kind === 'postgres'
        ? 'SELECT payment_status FROM host_orders WHERE id = $1'
        : 'SELECT payment_status FROM host_orders WHERE id = ?',
      [order.id],
    )) as Array<{ payment_status: string }>;
    expect(row.payment_status).toBe('awaiting');
  });

  it("refuses an order whose reference another order's attempt already carries, as the caller's input", async () => {
    const { order } = await payNewOrder(shop.app, db);
    const other = makeOrder({ reference: order.reference });
    const error = await shop.app
      .get(InvoicePaymentProvider)
      .initiatePayment(checkout(other, 'pix'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckoutValidationError);
    expect((error as CheckoutValidationError).fields).toEqual({
      'order.reference': [expect.stringMatching(/is already used by another order \(referrer .*-1 exists\)/)],
    });
    expect(await db.dataSource.getRepository(InvoiceRecord).countBy({ orderId: other.id })).toBe(0);
  });
});

const describeOnPostgres = databaseKinds().includes('postgres') ? describe : () => undefined;

describeOnPostgres('checkout: statements of one checkout [postgres]', () => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let shop: HostApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase('postgres');
    sandbox = await startSandbox();
    shop = await startShop(db, sandbox);
    await payNewOrder(shop.app, db); // the settings row and the referrer namespace are made once, by the first
  });
  afterAll(async () => {
    await shop?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('a new PIX order, its first status and the host told: 4 statements, no transaction', async () => {
    sent.length = 0;
    counting = true;
    try {
      await payNewOrder(shop.app, db);
    } finally {
      counting = false;
    }
    const statements = sent.filter((s) => !s.startsWith('INSERT INTO host_orders')); // the test's own setup
    const transactions = statements.filter((s) => /^(START TRANSACTION|BEGIN)/i.test(s));
    // On failure the statements themselves are the useful message.
    // The claim, the settlement (its status and history in one guarded statement), the host's port, the change closed.
    expect(statements.length <= 4 ? [] : statements).toEqual([]);
    expect(transactions).toEqual([]);
    expect(
      statements.filter((s) => s.startsWith('WITH upd AS (UPDATE "invoice_payments_invoice"')),
    ).toHaveLength(1);
    // Nothing just written is read back: the record is only read under the status path's lock (a new order needs
    // no lookup before its claim either).
    const reads = statements.filter(
      (s) => s.startsWith('SELECT') && s.includes('"invoice_payments_invoice"') && !s.includes('FOR UPDATE'),
    );
    expect(reads).toEqual([]);
    expect(statements.filter((s) => s.startsWith('UPDATE host_orders'))).toHaveLength(1);
    // A new order's claim is the statement of attempt 1, not the general one (which computes the attempt).
    const claims = statements.filter((s) => s.startsWith('INSERT INTO invoice_payments_invoice'));
    expect(claims).toEqual([expect.not.stringContaining('MAX(attempt)')]);
  });

  it("an order's next attempt is claimed by the general statement once the order has a row", async () => {
    const { order, out } = await payNewOrder(shop.app, db);
    await shop.app.get(InvoicePaymentProvider).cancelPayment({ data: out.data });
    sent.length = 0;
    counting = true;
    let again: Awaited<ReturnType<InvoicePaymentProvider['initiatePayment']>>;
    try {
      again = await shop.app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
    } finally {
      counting = false;
    }
    expect(again.data).toMatchObject({ attempt: 2, creationState: 'created' });
    const claims = sent.filter((s) => s.startsWith('INSERT INTO invoice_payments_invoice'));
    expect(claims).toEqual([
      expect.not.stringContaining('MAX(attempt)'),
      expect.stringContaining('MAX(attempt)'),
    ]);
  });
});
