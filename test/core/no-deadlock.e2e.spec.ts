import { randomBytes } from 'node:crypto';
import { Injectable, INestApplication } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import {
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoiceRecord,
  OrderPaymentPort,
  PaymentStatusChange,
} from '../../src/index';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { HostApp, startHostApp, waitFor } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';

const TOKEN = 'tok_pool_0123456789';

/** The driver's positional parameter: `$n` on PostgreSQL, `?` on SQLite. */
const arg = (em: EntityManager, n: number) => (em.connection.options.type === 'postgres' ? `$${n}` : '?');
const CONCURRENT = 32;

/** A host's order port as stores write it: it updates the host's own orders table through the app's DataSource. */
@Injectable()
class HostOrdersPort implements OrderPaymentPort {
  static calls = 0;
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      await em.query(`UPDATE host_orders SET payment_status = ${arg(em, 1)} WHERE id = ${arg(em, 2)}`, [
        change.current.orderPaymentStatus,
        change.orderId,
      ]);
    });
    HostOrdersPort.calls++;
  }
}

/**
 * Issue 14: the module never holds a pooled connection while the host's port runs. A burst of checkouts and
 * webhooks with a port on the same pool (PostgreSQL: 10 connections) completes instead of deadlocking.
 */
describeEachDatabase('no pool deadlock under a burst, with a port on the same pool', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: HostApp;
  let app: INestApplication;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind, 10);
    await db.dataSource.query(
      'CREATE TABLE host_orders (id varchar(128) PRIMARY KEY, payment_status varchar(32) NOT NULL)',
    );
    sandbox = await startSandbox({
      tokens: [{ token: TOKEN, scopes: ['invoice.read', 'invoice.write', 'invoice.update'] }],
    });
    host = await startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox' },
          webhooks: { inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
          admin: { encryption: { keys: { k1: randomBytes(32) } }, settingsCacheTtlMs: 0 },
          notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
          orderPort: HostOrdersPort,
        }),
      ],
      { listen: true },
    );
    app = host.app;
    await app
      .get(InvoicePaymentsSettingsService)
      .update({ publicWebhookUrl: `${host.url}/webhooks/invoice-payments` });
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it(`${CONCURRENT} concurrent checkouts, then their payments by webhook, all complete`, async () => {
    const orders = Array.from({ length: CONCURRENT }, () => makeOrder());
    for (const o of orders) {
      const [a, b] = [arg(db.dataSource.manager, 1), arg(db.dataSource.manager, 2)];
      await db.dataSource.query(`INSERT INTO host_orders (id, payment_status) VALUES (${a}, ${b})`, [
        o.id,
        'not_paid',
      ]);
    }
    const provider = app.get(InvoicePaymentProvider);
    const sessions = await Promise.all(orders.map((o) => provider.initiatePayment(checkout(o, 'pix'))));
    expect(sessions.every((s) => s.data.creationState === 'created')).toBe(true);
    await Promise.all(sessions.map((s) => sandbox.controls.pay(s.data.gatewayId!)));
    // A guard against hanging only: a deadlock never finishes.
    await waitFor(
      async () => {
        const rows: Array<{ n: string | number }> = await db.dataSource.query(
          `SELECT COUNT(*) AS n FROM host_orders WHERE payment_status = 'captured'`,
        );
        return Number(rows[0].n) === CONCURRENT;
      },
      60_000,
      'every order captured in the host table',
      100,
    );
    const records = await db.dataSource.getRepository(InvoiceRecord).find();
    expect(records.filter((r) => r.statusCode === 5)).toHaveLength(CONCURRENT);
    expect(HostOrdersPort.calls).toBeGreaterThanOrEqual(CONCURRENT * 2);
  });
});
