import { InvoicePaymentProvider, InvoiceRecord } from '../../src/index';
import { webhookAction } from '../../src/medusa/runtime';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { startSandbox, type DeliveryLogEntry, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { OTHER_SERVICE_PROFILE } from '../support/other-service';
import { RootApp, startRootApp } from '../support/root-app';
import { SANDBOX_TOKEN, waitFor } from './support';

/**
 * The Medusa provider's webhook path (`getWebhookActionAndData` → `webhookAction`) goes through the same intake as
 * the module's route: a store whose service sends its own webhook shape (a custom `webhook` wire profile) is read
 * with that profile on Medusa too, and the route's bounds and dead letters hold there.
 */
/** The other service's webhook shape, as a store writes it in its options. */
function webhookProfile() {
  const w = OTHER_SERVICE_PROFILE.webhook;
  return {
    invoice: [...w.invoice],
    event: [...w.event],
    deliveryId: [...w.deliveryId],
    webhookId: [...w.webhookId],
    sentAt: [...w.sentAt],
    test: [...w.test],
  };
}

describeEachDatabase('Medusa webhook path through the one intake', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: RootApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    host = await startRootApp(db, sandbox, {
      gateway: {
        baseUrl: sandbox.url,
        accessToken: SANDBOX_TOKEN,
        mode: 'sandbox',
        // The service of this store wraps the invoice as `dados.cobranca` and names its metadata in Portuguese.
        profile: { webhook: webhookProfile() },
      },
      // Deliveries reach the provider only, as on Medusa: none is sent to the module's own route.
      checkout: { publicWebhookUrl: 'http://127.0.0.1:9/hooks/payment/invoice-payments' },
    });
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  /** A sandbox delivery in this store's service's shape, as Medusa's webhook route hands it to the provider. */
  const reshaped = (d: DeliveryLogEntry, body: Record<string, unknown> = shape(d)) => ({
    data: body,
    rawData: JSON.stringify(body),
    headers: { ...d.headers, Webhook: (d.headers.Webhook as string[]).join(', ') },
  });
  const shape = (d: DeliveryLogEntry) => ({
    evento: d.body.event,
    id_entrega: d.body.delivery_id,
    origem: d.body.webhook,
    enviado_em: d.body.sent_at,
    dados: { cobranca: d.body.invoice },
  });
  const paidDelivery = async (paidCents?: number) => {
    const provider = host.app.get(InvoicePaymentProvider);
    const order = makeOrder();
    const session = await provider.initiatePayment(checkout(order, 'pix'));
    const rec = await record(session.data.invoiceRecordId);
    await sandbox.controls.pay(
      rec.gatewayId!,
      paidCents === undefined ? undefined : { amountCents: paidCents },
    );
    let paid: DeliveryLogEntry | undefined;
    await waitFor(async () => {
      paid = sandbox.deliveries().find((d) => d.invoiceId === rec.gatewayId && d.statusCode === 5);
      return paid !== undefined;
    });
    return { rec, order, paid: paid! };
  };

  it('reads a custom-shaped delivery with the store profile, confirms it, and answers captured', async () => {
    const { rec, order, paid } = await paidDelivery();
    expect(rec.orderId).toBe(order.id);
    const result = await webhookAction(host.app, reshaped(paid));
    // Medusa's terms: its payment session is the order's, its amount in major units (see src/medusa/runtime.ts).
    expect(result.action).toBe('captured');
    expect(result.data?.session_id).toBe(order.id);
    expect((await record(rec.id)).statusCode).toBe(5);
    const entries = await db.dataSource
      .getRepository(WebhookInboxEntry)
      .findBy({ gatewayId: rec.gatewayId! });
    expect(entries.map((e) => e.state)).toEqual(['processed']);
  });

  it('a paid invoice of the wrong amount is never captured, on either entry: requires_more, as authorizePayment', async () => {
    const { rec, paid } = await paidDelivery(makeOrder().total - 1);
    const provider = host.app.get(InvoicePaymentProvider);
    const viaProvider = await provider.getWebhookActionAndData(reshaped(paid));
    const viaMedusa = await webhookAction(host.app, reshaped(paid));
    expect((await record(rec.id)).amountMismatch).toBe(true);
    expect(viaProvider.action).toBe('requires_more');
    expect(viaMedusa.action).toBe('requires_more');
    expect((await provider.authorizePayment({ data: { invoiceRecordId: rec.id } })).status).toBe(
      'requires_more',
    );
  });

  it('refuses on Medusa what the route refuses: too deep, too large, a forged token; nothing is stored', async () => {
    const { rec, paid } = await paidDelivery();
    let deep: Record<string, unknown> = {};
    const deepBody = deep;
    for (let i = 0; i < 200; i++) deep = (deep.x = {}) as Record<string, unknown>;
    const tooLarge = Buffer.alloc(300_000, 0x20);
    const forged = reshaped(paid);
    forged.headers = { ...forged.headers, Webhook: `${paid.body.webhook}, forged-token` };
    for (const payload of [
      reshaped(paid, deepBody),
      { data: {}, rawData: tooLarge, headers: reshaped(paid).headers },
      forged,
    ]) {
      expect(await webhookAction(host.app, payload)).toEqual({ action: 'not_supported' });
    }
    expect(await db.dataSource.getRepository(WebhookInboxEntry).countBy({ gatewayId: rec.gatewayId! })).toBe(
      0,
    );
    expect((await record(rec.id)).statusCode).toBe(1);
  });
});
