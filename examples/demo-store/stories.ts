import { formatBrl } from '../../src/index';
import type { CreateOrderDto } from './order.dto';
import type { OrderView, PaymentView } from './views';
import type { Run, Stepper } from './walkthrough';

/** Where the physical orders go. */
const SAO_PAULO = {
  address_1: 'Avenida Paulista',
  number: '1578',
  address_2: 'Conjunto 42',
  district: 'Bela Vista',
  city: 'São Paulo',
  province: 'SP',
  postal_code: '01310-200',
  country_code: 'br',
};

/** PIX, physical goods, a Brazilian address: paid by the customer, confirmed by webhook, shipped and tracked. */
export async function pixStory(run: Run, step: Stepper): Promise<void> {
  const t = run.timeline;
  let order!: OrderView;
  let payment!: PaymentView;
  const input: CreateOrderDto = {
    items: [
      { product_id: 'prod_cafe', quantity: 2 },
      { product_id: 'prod_caneca', quantity: 1 },
    ],
    customer: {
      first_name: 'Maria',
      last_name: 'Silva',
      email: 'maria@example.com',
      document: '529.982.247-25',
    },
    shipping_address: SAO_PAULO,
  };
  await step('create', async () => {
    order = run.orders.pix = await run.client.createOrder(input);
    placed(run, order);
  });
  await step('pay', async () => {
    const paying = await run.client.pay(order.id, { method: 'pix' });
    payment = paying.payment;
    const code = payment.pix?.copy_paste;
    if (!code || !payment.invoice_number) throw new Error('the payment carries no PIX copy-and-paste code');
    t.step(`Customer chose PIX: invoice ${payment.invoice_number} issued, due ${payment.due_date ?? '?'}`);
    t.detail('PIX copy-and-paste', t.highlight(code));
    t.block(run.drawQr(code));
    if (payment.pix?.qr_code_url) t.detail('QR image', payment.pix.qr_code_url);
    t.detail('Order', `payment ${paying.order.payment_status}`);
  });
  await step('customer_pays', async () => {
    await run.client.sandboxPay(payment.invoice_number as string);
    t.step('Customer paid the PIX in the bank app (sandbox pay control)');
  });
  await step('webhook', async () => {
    order = run.orders.pix = await paidByWebhook(run, order, payment);
  });
  const code = trackingCode();
  await step('ship', async () => {
    order = run.orders.pix = await run.client.ship(order.id, {
      tracking_code: code,
      carrier: 'Correios',
      tracking_url: `https://rastreamento.correios.com.br/app/index.php?objeto=${code}`,
    });
    if (order.fulfillment_status !== 'shipped')
      throw new Error(`order is ${order.fulfillment_status} after shipping`);
    t.step(`Admin shipped order #${order.display_id} by Correios, tracking code ${t.highlight(code)}`);
    t.detail(
      'Order',
      `${order.status}, fulfillment ${order.fulfillment_status}, payment ${order.payment_status}`,
    );
  });
  await step('tracking', async () => {
    let held: string | null = null;
    await run.until(
      'the tracking code to reach the service',
      async () => {
        held = (await run.client.sandboxInvoice(payment.invoice_number as string)).tracking?.code ?? null;
        return held === code;
      },
      () => `the service holds ${held ?? 'no code'}`,
    );
    run.trackingAtService = held;
    t.ok(`Tracking code ${code} posted to the service for invoice ${payment.invoice_number}`);
  });
}

/** Card, tokenized in the browser by the service's script: approved, confirmed by webhook, then refunded. */
export async function cardStory(run: Run, step: Stepper): Promise<void> {
  const t = run.timeline;
  let order!: OrderView;
  let payment!: PaymentView;
  let card!: { token: string; expiry: string };
  await step('create', async () => {
    order = run.orders.card = await run.client.createOrder({
      items: [
        { product_id: 'prod_caneca', quantity: 2 },
        { product_id: 'prod_ebook', quantity: 1 },
      ],
      customer: {
        first_name: 'João',
        last_name: 'Souza',
        email: 'joao@example.com',
        document: '111.444.777-35',
      },
      shipping_address: { ...SAO_PAULO, address_1: 'Rua Augusta', number: '900', address_2: undefined },
    });
    placed(run, order);
  });
  await step('tokenize', async () => {
    const expiry = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, '0')}`;
    const token = await run.client.cardToken({ number: '4111111111111111', holder: 'JOAO SOUZA', expiry });
    card = { token: token.token, expiry };
    t.step(
      `Browser tokenized the card •••• ${token.last4} (the service's card script; the store never sees the number)`,
    );
  });
  await step('pay', async () => {
    payment = (
      await run.client.pay(order.id, {
        method: 'card',
        card: { token: card.token, expiry: card.expiry, holder_name: 'JOAO SOUZA' },
        installments: 2,
      })
    ).payment;
    if (!payment.invoice_number) throw new Error('no invoice was issued');
    t.step(
      `Customer paid by card in ${payment.installments}x: invoice ${payment.invoice_number}, ${payment.card?.brand ?? 'card'} •••• ${payment.card?.last4 ?? '????'}`,
    );
  });
  await step('webhook', async () => {
    order = run.orders.card = await paidByWebhook(run, order, payment);
  });
  await step('refund', async () => {
    order = run.orders.card = await run.client.refund(order.id);
    t.step(`Admin refunded ${formatBrl(order.total)} (the customer returned everything)`);
  });
  await step('refunded', async () => {
    order = run.orders.card = await run.waitForOrder(
      order.id,
      'the order to be refunded',
      (o) => o.payment_status === 'refunded' && o.refunded_total === o.total,
    );
    const atService = await run.client.sandboxInvoice(payment.invoice_number as string);
    if (atService.statusCode !== 9)
      throw new Error(`the service shows status ${atService.statusCode}, not 9`);
    t.ok(
      `Order #${order.display_id} refunded: ${formatBrl(order.refunded_total)} back to the card, invoice status 9`,
    );
  });
}

/** Bank slip for a digital product: the line and link shown, then the order canceled before it was paid. */
export async function billetStory(run: Run, step: Stepper): Promise<void> {
  const t = run.timeline;
  let order!: OrderView;
  let payment!: PaymentView;
  await step('create', async () => {
    order = run.orders.billet = await run.client.createOrder({
      items: [{ product_id: 'prod_ebook', quantity: 1 }],
      customer: {
        first_name: 'Café',
        last_name: 'Aurora Ltda',
        email: 'compras@example.com',
        document: '11.222.333/0001-81',
      },
    });
    placed(run, order);
  });
  await step('pay', async () => {
    payment = (await run.client.pay(order.id, { method: 'billet' })).payment;
    if (!payment.billet?.line) throw new Error('the payment carries no bank-slip line');
    t.step(`Customer chose bank slip: invoice ${payment.invoice_number}, due ${payment.due_date ?? '?'}`);
    t.detail('Digitable line', t.highlight(payment.billet.line));
    if (payment.billet.url) t.detail('Bank slip', payment.billet.url);
  });
  await step('cancel', async () => {
    await run.client.cancel(order.id);
    order = run.orders.billet = await run.waitForOrder(
      order.id,
      'the order to be canceled',
      (o) => o.status === 'canceled' && o.payment_status === 'canceled',
    );
    const atService = await run.client.sandboxInvoice(payment.invoice_number as string);
    if (atService.statusCode !== 6)
      throw new Error(`the service shows status ${atService.statusCode}, not 6`);
    t.ok(`Admin canceled order #${order.display_id}: the bank slip is void at the service (status 6)`);
  });
}

function placed(run: Run, order: OrderView): void {
  const t = run.timeline;
  const lines = order.items.map((i) => `${i.quantity}× ${i.title}`).join(', ');
  t.step(`Storefront placed order #${order.display_id}: ${lines}`);
  t.detail(
    'Customer',
    `${order.customer.first_name} ${order.customer.last_name}, ${order.customer.document}`,
  );
  const a = order.shipping_address;
  if (a)
    t.detail(
      'Ship to',
      `${a.address_1}, ${a.number} — ${a.district}, ${a.city}/${a.province}, CEP ${a.postal_code}`,
    );
  const shipping = order.shipping_total ? ` + shipping ${formatBrl(order.shipping_total)}` : '';
  t.detail('Total', `${formatBrl(order.total)} (items ${formatBrl(order.subtotal)}${shipping})`);
}

/** Waits until a webhook delivery has marked the order paid, and shows the delivery the sandbox logged. */
async function paidByWebhook(run: Run, order: OrderView, payment: PaymentView): Promise<OrderView> {
  const t = run.timeline;
  const paid = await run.waitForOrder(
    order.id,
    'the webhook to mark the order paid',
    (o) => o.payment_status === 'captured',
  );
  const event = paid.payment_events.find((e) => e.invoice_record_id === payment.session_id && e.code === 5);
  if (event?.source !== 'webhook')
    throw new Error(`the order was marked paid by ${event?.source ?? 'nothing'}, not a webhook`);
  const deliveries = await run.client.sandboxDeliveries();
  const delivery = deliveries.find(
    (d) => d.invoiceId === payment.invoice_number && d.statusCode === 5 && d.state === 'delivered',
  );
  t.ok(
    `Webhook received: invoice ${payment.invoice_number} paid (status 5), order #${paid.display_id} marked paid`,
  );
  if (delivery) {
    const last = delivery.attempts[delivery.attempts.length - 1];
    t.detail(
      'Delivery',
      `${delivery.event} → ${delivery.url} · HTTP ${last?.status ?? '?'} (attempt ${delivery.attempts.length})`,
    );
  }
  return paid;
}

/**
 * A Correios-style tracking code (UPU S10): two letters, eight digits, a check digit, `BR`. Unique per run so a
 * second run never posts a code the service already holds.
 */
export function trackingCode(serial = Date.now() % 100_000_000): string {
  const digits = String(serial).padStart(8, '0');
  const weights = [8, 6, 4, 2, 3, 5, 9, 7];
  const rest = 11 - ([...digits].reduce((sum, d, i) => sum + Number(d) * weights[i], 0) % 11);
  const check = rest === 10 ? 0 : rest === 11 ? 5 : rest;
  return `QB${digits}${check}BR`;
}
