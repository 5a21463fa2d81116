import { randomUUID } from 'node:crypto';
import { InvoicePaymentProvider, InvoiceRecord } from '../../src/index';
import { WebhookNotSettledError } from '../../src/core/ports';
import { webhookAction } from '../../src/medusa/runtime';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { checkout, makeOrder, openCheckoutDatabase } from '../checkout/support';
import { sandboxGateway } from '../support/app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { RootApp, startRootApp } from '../support/root-app';
import { tokenLine } from './support';

/**
 * A delivery Medusa waits for that cannot be settled now (here refused 503: the budget of deliveries naming invoices
 * by referrer only is spent, so nothing is stored) throws, so Medusa's event bus retries and nothing is lost.
 */
describeEachDatabase('webhooks: a delivery a host waits for, not settled now', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let host: RootApp;

  beforeAll(async () => {
    db = await openCheckoutDatabase(kind);
    sandbox = await startSandbox();
    host = await startRootApp(db, sandbox, {
      gateway: sandboxGateway(sandbox.url),
      webhooks: {
        inbox: {
          pollIntervalMs: 50,
          retryBaseDelayMs: 50,
          retryMaxDelayMs: 200,
          unknownLookupsPerWindow: 1,
          unknownLookupWindowMs: 600_000,
        },
      },
    });
  });
  afterAll(async () => {
    await host?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('Medusa throws WebhookNotSettledError for a delivery refused 503; nothing is stored', async () => {
    const provider = host.app.get(InvoicePaymentProvider);
    const session = await provider.initiatePayment(checkout(makeOrder(), 'pix'));
    const rec = await db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({
      id: session.data.invoiceRecordId,
    });
    const template = sandbox.controls.renderInvoice(rec.gatewayId!)!;
    const hook = sandbox.controls.webhooks().find((w) => w.id === 'default')!;
    // A number no record holds, under the session's referrer: taken by referrer only, within the budget.
    const byReferrerOnly = (invoiceId: string) => ({
      data: {
        event: 'invoice.update',
        delivery_id: randomUUID(),
        webhook: 'default',
        invoice: { ...structuredClone(template), id: invoiceId, referrer: rec.referrer },
      },
      rawData: '',
      headers: { webhook: ['default', tokenLine('', hook.token)] },
    });
    // The budget of one is spent here (or was by the checkout's own first delivery): either way, not settled now.
    await expect(webhookAction(host.app, byReferrerOnly(`made-up-${randomUUID()}`))).rejects.toThrow(
      WebhookNotSettledError,
    );

    const refused = /503: too many deliveries naming invoices by referrer only/;
    const viaMedusa = `made-up-${randomUUID()}`;
    const medusaAnswer = webhookAction(host.app, byReferrerOnly(viaMedusa));
    await expect(medusaAnswer).rejects.toThrow(WebhookNotSettledError);
    await expect(medusaAnswer).rejects.toThrow(refused);
    const inbox = db.dataSource.getRepository(WebhookInboxEntry);
    expect(await inbox.countBy({ gatewayId: viaMedusa })).toBe(0);
  });
});
