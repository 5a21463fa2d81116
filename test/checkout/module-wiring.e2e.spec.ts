import { Global, Injectable, Module } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { Logger as TypeOrmLogger } from 'typeorm';
import request from 'supertest';
import {
  InvoicePaymentsModule,
  InvoicePaymentsModuleOptions,
  OrderPaymentPort,
  PaymentStatusChange,
} from '../../src/index';
import { InvoiceRecordStore } from '../../src/core/invoice-record.store';
import { InvoiceIdentity } from '../../src/core/invoice-identity';
import { WORKERS_ENV } from '../../src/options/resolve';
import { OpenInvoicesReconciler } from '../../src/reconciliation/open-invoices.reconciler';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { startHostApp, waitFor } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { openCheckoutDatabase, SANDBOX_TOKEN } from './support';

const ADMIN_KEY = 'admin-key-from-config-0123456789';
const CONFIG = 'TEST_CONFIG';

/** Something the host's port needs that nobody provides to the payment module. */
@Injectable()
class OrderRepositoryStandIn {}

@Injectable()
class PortNeedingAnImport implements OrderPaymentPort {
  constructor(readonly orders: OrderRepositoryStandIn) {}
  async onPaymentStatusChanged(_change: PaymentStatusChange): Promise<void> {}
}

/** Counts the queries the app sends to the test database. */
function countQueries(db: TestDatabase): { count: () => number; reset: () => void; restore: () => void } {
  const source = db.dataSource as unknown as { logger: TypeOrmLogger };
  const original = source.logger;
  let queries = 0;
  source.logger = new Proxy(original, {
    get(target, name, receiver) {
      if (name === 'logQuery') return () => void queries++;
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
  return { count: () => queries, reset: () => (queries = 0), restore: () => (source.logger = original) };
}

describeEachDatabase(
  'InvoicePaymentsModule wiring: async sections, the order port, the workers switch',
  (kind) => {
    let db: TestDatabase;
    let sandbox: SandboxServer;

    beforeAll(async () => {
      db = await openCheckoutDatabase(kind);
      sandbox = await startSandbox();
    });
    afterAll(async () => {
      await sandbox?.close();
      await db?.destroy();
    });

    const gateway = () => ({ baseUrl: sandbox.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' as const });

    it('forRootAsync honours admin, webhooks and shipping from the factory (admin key from a config provider)', async () => {
      const host = await startHostApp(
        db,
        [
          InvoicePaymentsModule.forRootAsync({
            webhooks: { path: 'api/hooks/pay' },
            imports: [],
            inject: [CONFIG],
            useFactory: (config: unknown): InvoicePaymentsModuleOptions => ({
              gateway: gateway(),
              admin: { adminKey: (config as { adminKey: string }).adminKey },
              webhooks: { bodyLimitBytes: 1000 },
              shipping: { shipmentEvent: 'custom.order_shipped' },
            }),
          }),
        ],
        {
          listen: true,
          hostImports: [configModule({ adminKey: ADMIN_KEY })],
        },
      );
      try {
        await request(host.url)
          .get('/admin/invoice-payments/settings')
          .set('Authorization', `Bearer ${ADMIN_KEY}`)
          .expect(200);
        await request(host.url).get('/admin/invoice-payments/settings').expect(401);
        // The factory's body limit applies on the route given beside it.
        await request(host.url)
          .post('/api/hooks/pay')
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ padding: 'x'.repeat(2000) }))
          .expect(413);
        expect(host.app.get(EventEmitter2).listenerCount('custom.order_shipped')).toBe(1);
        expect(host.app.get(EventEmitter2).listenerCount('order.shipment_created')).toBe(0);
      } finally {
        await host.close();
      }
    });

    it('forRootAsync refuses a factory asking for another route, naming the option and the fix', async () => {
      const attempt = startHostApp(db, [
        InvoicePaymentsModule.forRootAsync({
          useFactory: () => ({ gateway: gateway(), webhooks: { path: 'elsewhere' } }),
        }),
      ]);
      await expect(attempt).rejects.toThrow(
        /webhooks\.path "elsewhere" from the factory .*beside useFactory/,
      );
    });

    it('a port whose dependencies are missing fails the start with what to do, not an internal module name', async () => {
      const attempt = startHostApp(db, [
        InvoicePaymentsModule.forRoot({ gateway: gateway(), orderPort: PortNeedingAnImport }),
      ]);
      await expect(attempt).rejects.toThrow(
        /cannot build the order port PortNeedingAnImport: [\s\S]*Fix: list the modules that provide PortNeedingAnImport's dependencies in the module's own imports/,
      );
      const fixed = await startHostApp(db, [
        InvoicePaymentsModule.forRoot({
          gateway: gateway(),
          orderPort: PortNeedingAnImport,
          imports: [providingModule(OrderRepositoryStandIn)],
        }),
      ]);
      await fixed.close();
    });

    it('has one InvoiceIdentity, shared by the checkout, the webhooks and the reconciliation (each invoice alerted once)', async () => {
      const host = await startHostApp(db, [InvoicePaymentsModule.forRoot({ gateway: gateway() })]);
      try {
        // The inbox processor hands its identity to the records it reads (webhook-inbox.outcomes.ts).
        type Holder = { identity?: InvoiceIdentity; records?: { identity?: InvoiceIdentity } };
        const identityOf = (part: object) => (part as Holder).identity ?? (part as Holder).records?.identity;
        const one = host.app.get(InvoiceIdentity);
        expect(one).toBeInstanceOf(InvoiceIdentity);
        const parts = [InvoiceRecordStore, WebhookInboxProcessor, OpenInvoicesReconciler];
        const shared = parts.map((part) => [part.name, identityOf(host.app.get<object>(part)) === one]);
        expect(shared).toEqual(parts.map((part) => [part.name, true]));
      } finally {
        await host.close();
      }
    });

    describe('workers', () => {
      const busy: InvoicePaymentsModuleOptions['webhooks'] = {
        inbox: { pollIntervalMs: 20 },
      };
      const options = (workers?: boolean): InvoicePaymentsModuleOptions => ({
        gateway: gateway(),
        webhooks: busy,
        shipping: { pollIntervalMs: 20 },
        notifications: { pollIntervalMs: 20 },
        ...(workers === undefined ? {} : { workers }),
      });

      /** A second database, for a twin app whose workers run. */
      let twin: TestDatabase;
      beforeAll(async () => {
        twin = await openCheckoutDatabase(kind);
      });
      afterAll(() => twin?.destroy());

      /**
       * Queries the app ran on its own after starting, counted once a twin with the same options and its workers on
       * (on its own database) has run several polls: by then a worker of the app's has had its chance to query.
       */
      async function idleQueries(moduleOptions: InvoicePaymentsModuleOptions): Promise<number> {
        const counter = countQueries(db);
        const twinCounter = countQueries(twin);
        try {
          const host = await startHostApp(db, [InvoicePaymentsModule.forRoot(moduleOptions)]);
          try {
            counter.reset();
            const working = { ...moduleOptions, workers: true };
            const twinHost = await startHostApp(twin, [InvoicePaymentsModule.forRoot(working)]);
            try {
              // Counted from the end of its start: its polls, not what starting it asked.
              twinCounter.reset();
              await waitFor(() => twinCounter.count() >= 10, 15_000, "the twin's workers polling");
            } finally {
              await twinHost.close();
            }
            return counter.count();
          } finally {
            await host.close();
          }
        } finally {
          counter.restore();
          twinCounter.restore();
        }
      }

      it('run by default (the measure can see them)', async () => {
        expect(await idleQueries(options())).toBeGreaterThan(0);
      });

      it('workers: false starts none: no query of its own', async () => {
        expect(await idleQueries(options(false))).toBe(0);
      });

      it(`${WORKERS_ENV}=off starts none; the option wins over it`, async () => {
        process.env[WORKERS_ENV] = 'off';
        try {
          expect(await idleQueries(options())).toBe(0);
          expect(await idleQueries(options(true))).toBeGreaterThan(0);
        } finally {
          delete process.env[WORKERS_ENV];
        }
      });
    });
  },
);

function configModule(config: object) {
  @Global()
  @Module({
    providers: [{ provide: CONFIG, useValue: config }],
    exports: [CONFIG],
  })
  class TestConfigModule {}
  return TestConfigModule;
}

function providingModule(provider: new () => unknown) {
  @Module({ providers: [provider], exports: [provider] })
  class HostOrdersModule {}
  return HostOrdersModule;
}
