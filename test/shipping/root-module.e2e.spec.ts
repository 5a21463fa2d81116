import { randomBytes } from 'node:crypto';
import { INestApplication } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  InvoicePaymentProvider,
  InvoicePaymentsEvents,
  InvoicePaymentsModule,
  InvoiceRecord,
  OrderNotPaidError,
  TrackingPostedEvent,
  TrackingService,
} from '../../src/index';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { TrackingOutbox } from '../../src/shipping/tracking-outbox.entity';
import { TrackingWorker } from '../../src/shipping/tracking.worker';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase, RecordingOrderPort } from '../checkout/support';
import { HostApp, startHostApp } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { CapturingLogger, TOKEN } from './support';

/** The whole module as a store registers it: checkout creates, a webhook marks it paid, the shipment is posted. */
describeEachDatabase('shipping in the root module', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: HostApp;
  let app: INestApplication;
  const logger = new CapturingLogger();
  const posted: TrackingPostedEvent[] = [];

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox({ tokens: [{ token: TOKEN, scopes: [...ALL_SCOPES] }] });
    host = await startHostApp(
      db,
      [
        InvoicePaymentsModule.forRoot({
          gateway: { baseUrl: sandbox.url, accessToken: TOKEN, mode: 'sandbox' },
          webhooks: { inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50 } },
          // The worker starts with the app, as in production; only the delays are short.
          shipping: { pollIntervalMs: 50, backoff: { initialDelayMs: 20, maxDelayMs: 100 } },
          admin: { encryption: { keys: { k1: randomBytes(32) } }, settingsCacheTtlMs: 0 },
          notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
          orderPort: RecordingOrderPort,
        }),
      ],
      { logger, listen: true },
    );
    app = host.app;
    await app
      .get(InvoicePaymentsSettingsService)
      .update({ publicWebhookUrl: `${host.url}/webhooks/invoice-payments` });
    app
      .get(EventEmitter2)
      .on(InvoicePaymentsEvents.TrackingPosted, (e: TrackingPostedEvent) => posted.push(e));
  });
  afterAll(async () => {
    // The test owns the DataSource: keep it open for the assertions' cleanup below.
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  const settle = async () => {
    await sandbox.controls.waitForDeliveries();
    await app.get(WebhookInboxProcessor).drain();
    await app.get(StatusChangeDispatcher).drain();
  };
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });

  it('refuses the shipment of an order not paid yet, then posts it once the payment is in', async () => {
    expect(app.get(TrackingWorker).running).toBe(true);
    const order = makeOrder();
    const session = await app.get(InvoicePaymentProvider).initiatePayment(checkout(order, 'pix'));
    const rec = await record(session.data.invoiceRecordId);
    const shipment = { orderId: order.id, trackingCode: 'BR987654321BR', carrier: 'Correios' };

    await expect(app.get(TrackingService).recordShipment(shipment)).rejects.toBeInstanceOf(OrderNotPaidError);

    await sandbox.controls.pay(rec.gatewayId!);
    await settle();
    await waitFor(async () => (await record(rec.id)).statusCode === 5, 15_000, 'the paid status');

    await app.get(EventEmitter2).emitAsync('order.shipment_created', shipment);
    await waitFor(() => posted.some((e) => e.orderId === order.id), 15_000, 'TrackingPosted');
    expect(sandbox.controls.getInvoice(rec.gatewayId!)?.tracking).toMatchObject({
      code: 'BR987654321BR',
      carrier: 'Correios',
    });
    expect(posted.find((e) => e.orderId === order.id)).toMatchObject({
      invoiceRecordId: rec.id,
      attempts: 1,
    });
    const rows = await db.dataSource.getRepository(TrackingOutbox).findBy({ orderId: order.id });
    expect(rows.map((r) => r.status)).toEqual(['sent']);
    // The service's tracking webhook changes nothing on the order.
    await settle();
    expect((await record(rec.id)).statusCode).toBe(5);
    expect(logger.lines.join('\n')).not.toContain(TOKEN);
  });

  it('money that came on an invoice canceled by the switch to another method is no payment of the order', async () => {
    const order = makeOrder();
    const provider = app.get(InvoicePaymentProvider);
    const pix = await provider.initiatePayment(checkout(order, 'pix'));
    // The shopper switches to bank slip: the PIX is canceled, the slip holds the order.
    const slip = await provider.updatePayment({
      amount: order.total,
      currency_code: 'BRL',
      data: { invoiceRecordId: pix.id, order, method: 'billet' },
    });
    expect((await record(pix.id)).statusCode).toBe(6);
    // The PIX transfer the shopper started before switching reaches the service after the cancel.
    await sandbox.controls.setStatus(pix.data.gatewayId!, 5);
    await settle();
    await waitFor(async () => (await record(pix.id)).statusCode === 5, 15_000, 'paid after cancel');
    const shipment = { orderId: order.id, trackingCode: 'BR111222333BR' };

    // That money goes back (paid_after_cancel): the order is not paid, its slip is.
    await expect(app.get(TrackingService).recordShipment(shipment)).rejects.toMatchObject({
      reason: 'not_paid',
      statusCode: 1,
    });
    await sandbox.controls.pay(slip.data.gatewayId!);
    await settle();
    await waitFor(async () => (await record(slip.id)).statusCode === 5, 15_000, 'the slip paid');
    await app.get(TrackingService).recordShipment(shipment);
    const rows = await db.dataSource.getRepository(TrackingOutbox).findBy({ orderId: order.id });
    expect(rows.map((r) => r.invoiceRecordId)).toEqual([slip.id]);
  });
});
