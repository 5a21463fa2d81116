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
  return `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Pagamento</title></head>
<body><main><h1>Pagamento</h1><div id="payment"></div></main>
<script type="module">
  import '/invoice-payment.js';
  const element = document.createElement('invoice-payment');
  element.headers = ${JSON.stringify({ 'x-publishable-api-key': page.publishableKey })};
  element.setAttribute('src', ${JSON.stringify(src)});
  document.getElementById('payment').append(element);
</script></body></html>`;
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
