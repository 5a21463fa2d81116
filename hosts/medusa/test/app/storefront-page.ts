import { lstatSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * The component as a store gets it: the file of the package installed from its tarball in this app's node_modules
 * (not the repository's build, not a symlink to it).
 */
export const INSTALLED_COMPONENT = join(
  __dirname,
  '..',
  '..',
  'node_modules',
  'nestjs-invoice-payments',
  'dist',
  'storefront',
  'index.js',
);

/** The storefront's checkout page for one cart: what the page needs to show the cart's payment. */
export interface CheckoutPage {
  /** Medusa's URL, as the starter's `NEXT_PUBLIC_MEDUSA_BACKEND_URL`. */
  medusaUrl: string;
  /** The publishable key, as the starter's `NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY`. */
  publishableKey: string;
  cartId: string;
  /** A card payment instead of a PIX already started: the form, the service's script, then the store. */
  card?: CardCheckout;
}

/** What the card form needs: the cart's total, the service's script, the guest's CPF the storefront collected. */
export interface CardCheckout {
  /** The cart's `total` as Medusa gives it (`134.8`), an exact decimal for the form. */
  amount: string;
  /** The service's card script (the sandbox's `{base_url}/js/card.js`). */
  tokenizerSrc: string;
  document: string;
  providerId: string;
}

/** A storefront page's own little server on loopback: its own origin, like the starter storefront's Next.js. */
export interface StorefrontServer {
  /** The page's origin (`http://127.0.0.1:<port>`): Medusa's `STORE_CORS` must include it. */
  origin: string;
  /** The checkout page of a cart. */
  pageUrl(page: CheckoutPage): string;
  close(): Promise<void>;
}

/**
 * The checkout page: imports the component, then creates the element with `headers` (the publishable key) set before
 * it is connected, so its first request already carries the key; `src` is the plugin's store route of the cart on
 * Medusa's own origin (a cross-origin call, as the starter storefront makes every store API call).
 */
function checkoutHtml(page: CheckoutPage): string {
  const src = `${page.medusaUrl}/store/invoice-payments/carts/${encodeURIComponent(page.cartId)}`;
  const start = page.card
    ? cardStart(page, page.card, src)
    : `element.setAttribute('src', ${JSON.stringify(src)});`;
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Pagamento</title></head>
<body><main><h1>Pagamento</h1><div id="payment"></div></main>
<script type="module">
  import '/invoice-payment.js';
  const element = document.createElement('invoice-payment');
  element.headers = ${JSON.stringify({ 'x-publishable-api-key': page.publishableKey })};
  ${start}
  document.getElementById('payment').append(element);
</script></body></html>`;
}

/**
 * The card: the form's attributes, and the `pay` hook of docs/storefront.md (Medusa) in the starter's HTTP calls
 * (`sdk.store.payment.initiatePaymentSession`: the cart's payment collection, then the session with the token;
 * `sdk.store.cart.complete`), answering the status route's `src`. The order's id goes to `data-order-id` for the test.
 */
function cardStart(page: CheckoutPage, card: CardCheckout, src: string): string {
  const store = JSON.stringify(page.medusaUrl);
  const key = JSON.stringify(page.publishableKey);
  const cart = JSON.stringify(page.cartId);
  return `element.setAttribute('method', 'card');
  element.setAttribute('amount', ${JSON.stringify(card.amount)});
  element.setAttribute('max-installments', '6');
  element.setAttribute('tokenizer-src', ${JSON.stringify(card.tokenizerSrc)});
  const call = async (path, body) => {
    const res = await fetch(${store} + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-publishable-api-key': ${key} },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error('the store answered ' + res.status);
    return res.json();
  };
  element.pay = async (card) => {
    const { payment_collection } = await call('/store/payment-collections', { cart_id: ${cart} });
    await call('/store/payment-collections/' + payment_collection.id + '/payment-sessions', {
      provider_id: ${JSON.stringify(card.providerId)},
      data: {
        method: 'card',
        document: ${JSON.stringify(card.document)},
        card: { token: card.token, expiry: card.expiry, holder_name: card.holderName },
        installments: card.installments,
      },
    });
    const completed = await call('/store/carts/' + ${cart} + '/complete', {});
    if (completed.type !== 'order') throw new Error('the cart was not completed');
    document.body.dataset.orderId = completed.order.id;
    return { src: ${JSON.stringify(src)} };
  };`;
}

/** Serves `/checkout?…` (the page) and `/invoice-payment.js` (the installed component) on 127.0.0.1. */
export async function startStorefront(): Promise<StorefrontServer> {
  if (!lstatSync(INSTALLED_COMPONENT).isFile()) throw new Error(`${INSTALLED_COMPONENT} is not a file`);
  const script = readFileSync(INSTALLED_COMPONENT);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://page.invalid');
    if (url.pathname === '/invoice-payment.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return void res.end(script);
    }
    if (url.pathname === '/checkout') {
      const page = JSON.parse(url.searchParams.get('page') ?? '{}') as CheckoutPage;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end(checkoutHtml(page));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageUrl: (page) => `${origin}/checkout?page=${encodeURIComponent(JSON.stringify(page))}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
