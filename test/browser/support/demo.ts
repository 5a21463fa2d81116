import type { RunningDemo } from '../../../examples/demo-store/bootstrap';
import type { DemoConfig } from '../../../examples/demo-store/config';
import { StoreClient } from '../../../examples/demo-store/store-client';
import type { OrderView } from '../../../examples/demo-store/views';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TrackingOutbox } from '../../../src/shipping/tracking-outbox.entity';
import { TrackingWorker } from '../../../src/shipping/tracking.worker';
import { outboxRow } from '../../shipping/support';

/** The admin page's URL in the demo store. */
export function adminPageUrl(demo: RunningDemo): string {
  return `${demo.storeUrl}/admin/invoice-payments/`;
}

/** Calls the module's admin API as the page does (bearer admin key). */
export async function adminApi<T>(demo: RunningDemo, config: DemoConfig, path: string): Promise<T> {
  const res = await fetch(`${demo.storeUrl}/admin/invoice-payments${path}`, {
    headers: { Authorization: `Bearer ${config.adminKey}` },
  });
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}`);
  return (await res.json()) as T;
}

/** A customer orders coffee and chooses PIX: the invoice waits for payment (status 1). */
export async function pixOrderOpen(
  demo: RunningDemo,
  config: DemoConfig,
  customer = { first_name: 'Maria', last_name: 'Silva', email: 'maria@example.com' },
): Promise<{ order: OrderView; invoiceNumber: string }> {
  const client = new StoreClient(demo.storeUrl, demo.sandbox!.url, config.adminKey);
  const order = await client.createOrder({
    items: [{ product_id: 'prod_cafe', quantity: 2 }],
    customer: { ...customer, document: '529.982.247-25' },
    shipping_address: {
      address_1: 'Avenida Paulista',
      number: '1578',
      district: 'Bela Vista',
      city: 'São Paulo',
      province: 'SP',
      postal_code: '01310-200',
      country_code: 'br',
    },
  });
  const { payment } = await client.pay(order.id, { method: 'pix' });
  return { order, invoiceNumber: payment.invoice_number as string };
}

/** A customer orders coffee and pays by PIX at the (sandbox) service; resolves with the order and its invoice. */
export async function pixOrderPaid(
  demo: RunningDemo,
  config: DemoConfig,
  customer?: { first_name: string; last_name: string; email: string },
): Promise<{ order: OrderView; invoiceNumber: string }> {
  const open = await pixOrderOpen(demo, config, customer);
  await new StoreClient(demo.storeUrl, demo.sandbox!.url, config.adminKey).sandboxPay(open.invoiceNumber);
  return open;
}

/** Pays an invoice at the (sandbox) service, as the customer's bank would. */
export function sandboxPay(demo: RunningDemo, config: DemoConfig, invoiceNumber: string): Promise<void> {
  return new StoreClient(demo.storeUrl, demo.sandbox!.url, config.adminKey).sandboxPay(invoiceNumber);
}

/**
 * A tracking code the service can never take: its row names an invoice the service does not have (as after a
 * restore from an old backup), so the worker posts it, the service answers 404 and the code fails for good. Plus,
 * for the layout, a failed code whose error is one long unbroken word. Written straight into the outbox.
 */
export async function deadTrackingCodes(demo: RunningDemo, invoiceRecordId: string, orderId: string) {
  const now = new Date();
  const row = (code: string, extra: Partial<TrackingOutbox>) =>
    outboxRow({
      orderId,
      code,
      carrier: 'Correios',
      invoiceRecordId,
      gatewayInvoiceId: `missing-${randomUUID()}`,
      nextAttemptAt: now,
      ...extra,
    });
  const long = `addTrackingCode(invoice_id=${'x'.repeat(40)}):${'invalid_request_'.repeat(30)}`;
  await demo.app
    .get(DataSource)
    .getRepository(TrackingOutbox)
    .insert([
      row('BR100000001BR', {}),
      // Recorded earlier: the code that counts for the order is the one above.
      row('BR100000002BR', {
        status: 'failed',
        attempts: 1,
        lastError: long,
        lastErrorKind: 'validation',
        recordedAt: new Date(now.getTime() - 60_000),
      }),
    ]);
  demo.app.get(TrackingWorker).kick();
}

/**
 * An invoice made at the service outside the store (in the service's own panel, say) whose webhook points at the
 * store: the store has no record of it, so the delivery is retried, then dead-lettered.
 */
/**
 * A delivery naming one of the store's referrers (that of `ourInvoiceNumber`) under an invoice number the service
 * does not have, as another system on the account could send: the store takes it (the referrer is its own), the
 * service's lookup finds no such invoice, and after the demo's short unknown-invoice window it is dead-lettered with
 * an alert. Posted as the service posts (its token line, its headers). Answers the made-up number.
 */
export async function strayDelivery(demo: RunningDemo, ourInvoiceNumber: string): Promise<string> {
  const sandbox = demo.sandbox!;
  const invoice = sandbox.controls.renderInvoice(ourInvoiceNumber);
  if (!invoice) throw new Error(`the sandbox does not render invoice ${ourInvoiceNumber}`);
  const number = `9${Date.now()}`;
  const headers = new Headers({
    'Content-Type': 'application/json',
    UserId: 'sandbox-account',
    Gateway: 'sandbox',
  });
  headers.append('Webhook', 'default');
  headers.append('Webhook', Buffer.from(`:${sandbox.controls.webhooks()[0].token}`).toString('base64'));
  const body = {
    event: 'invoice.update',
    delivery_id: randomUUID(),
    webhook: 'default',
    invoice: { ...invoice, id: number },
  };
  const res = await fetch(demo.webhookUrl, { method: 'POST', headers, body: JSON.stringify(body) });
  if (res.status !== 200)
    throw new Error(`the store answered ${res.status} to the stray delivery: ${await res.text()}`);
  return number;
}
