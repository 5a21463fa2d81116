import { Injectable, Module } from '@nestjs/common';
import {
  CheckoutValidationError,
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  InvoicePaymentsModuleOptions,
  ORDER_PAYMENT_PORT,
  OrderPaymentPort,
  PaymentStatusChange,
  TrackingService,
} from '../../src/index';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { CLOCK } from '../../src/domain/clock';
import { todayIn, addDays } from '../../src/domain/text-and-days';
import { startSandbox, SandboxServer } from '../../src/sandbox';
import { startHostApp, waitFor } from '../support/app';
import { SAO_PAULO_NOON, ShiftedClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { checkout, makeOrder, openCheckoutDatabase, SANDBOX_TOKEN } from './support';

const CONFIG = 'TEST_PAYMENTS_CONFIG';

/** A host service the order port depends on, from the host's own module. */
@Injectable()
class OrderBook {
  readonly seen: PaymentStatusChange[] = [];
}

@Module({ providers: [OrderBook], exports: [OrderBook] })
class OrdersModule {}

@Injectable()
class BookPort implements OrderPaymentPort {
  constructor(private readonly book: OrderBook) {}
  async onPaymentStatusChanged(change: PaymentStatusChange): Promise<void> {
    this.book.seen.push(change);
  }
}

/** A host feature module that does not import the payment module itself. */
@Injectable()
class Shipper {
  constructor(readonly tracking: TrackingService) {}
}
@Module({ providers: [Shipper] })
class FeatureModule {}

describeEachDatabase('InvoicePaymentsModule registration', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  // The apps and the sandbox read one clock, away from midnight: a due date is counted from one day.
  const clock = new ShiftedClock(SAO_PAULO_NOON);
  const today = () => todayIn('America/Sao_Paulo', clock.date());

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ clock: () => clock.date() });
  });
  afterAll(async () => {
    await sandbox?.close();
    await db?.destroy();
  });

  const gateway = () => ({ baseUrl: sandbox.url, accessToken: SANDBOX_TOKEN, mode: 'sandbox' as const });

  const compile = (imports: unknown[]) =>
    startHostApp(db, imports as [], { logger: false, overrides: [[CLOCK, clock]] });

  it('forRootAsync: options from an injected config, an order port with the host’s own dependencies', async () => {
    @Module({ providers: [{ provide: CONFIG, useValue: { url: sandbox.url } }], exports: [CONFIG] })
    class ConfigModule {}

    const { app, close } = await compile([
      InvoicePaymentsModule.forRootAsync({
        imports: [ConfigModule, OrdersModule],
        inject: [CONFIG],
        useFactory: (config: unknown): InvoicePaymentsModuleOptions => ({
          gateway: { ...gateway(), baseUrl: (config as { url: string }).url },
          checkout: { dueDays: 5 },
          notifications: { pollIntervalMs: 50 },
        }),
        orderPort: BookPort,
      }),
    ]);
    try {
      const order = makeOrder();
      const out = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
      expect(out.data.dueDate).toBe(addDays(today(), 5));
      expect(app.get(ORDER_PAYMENT_PORT)).toBeInstanceOf(BookPort);
      const book = app.get(OrderBook);
      await waitFor(() => book.seen.some((c) => c.orderId === order.id), 5_000, 'the order port told');
      expect(book.seen.find((c) => c.orderId === order.id)?.current.code).toBe(1);
    } finally {
      await close();
    }
  });

  it('runtime settings override the checkout options without a restart', async () => {
    const { app, close } = await compile([InvoicePaymentsModule.forRoot({ gateway: gateway() })]);
    try {
      const settings = app.get(InvoicePaymentsSettingsService);
      await settings.update({ enabledMethods: ['pix'], dueDays: 9 });
      const provider = app.get(InvoicePaymentProvider);
      const refused = await provider
        .initiatePayment(checkout(makeOrder(), 'billet'))
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(CheckoutValidationError);
      expect((refused as CheckoutValidationError).fields).toHaveProperty('method');
      const out = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(out.data.dueDate).toBe(addDays(today(), 9));
      await settings.update({ enabledMethods: null, dueDays: null });
    } finally {
      await close();
    }
  });

  it('the gateway connection comes from the settings: a bad saved base URL is used at once', async () => {
    const { app, close } = await compile([InvoicePaymentsModule.forRoot({ gateway: gateway() })]);
    try {
      const settings = app.get(InvoicePaymentsSettingsService);
      await settings.update({ baseUrl: 'http://127.0.0.1:9' });
      const order = makeOrder();
      await expect(app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'))).rejects.toThrow();
      await settings.update({ baseUrl: null });
      const out = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
      expect(out.data.creationState).toBe('created');
    } finally {
      await close();
    }
  });

  it('isGlobal exposes the capabilities to host modules that do not import the module', async () => {
    const global = await compile([
      InvoicePaymentsModule.forRoot({ gateway: gateway(), isGlobal: true }),
      FeatureModule,
    ]);
    try {
      expect(global.app.get(Shipper).tracking).toBeInstanceOf(TrackingService);
    } finally {
      await global.close();
    }
    await expect(
      compile([InvoicePaymentsModule.forRoot({ gateway: gateway() }), FeatureModule]),
    ).rejects.toThrow(/TrackingService/);
  });

  it('refuses options without a gateway section, and bad checkout options by name', async () => {
    expect(() => InvoicePaymentsModule.forRoot({} as InvoicePaymentsModuleOptions)).toThrow(
      /gateway is required/,
    );
    await expect(
      compile([
        InvoicePaymentsModule.forRoot({ gateway: gateway(), checkout: { timeZone: 'Nowhere/Land' } }),
      ]),
    ).rejects.toThrow(/checkout\.timeZone/);
    const service = { ...gateway(), profile: { timeZone: 'Nowhere/Land' } };
    expect(() => InvoicePaymentsModule.forRoot({ gateway: service })).toThrow(/gateway\.profile\.timeZone/);
  });
});
