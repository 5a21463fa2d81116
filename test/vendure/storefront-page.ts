import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { print, type DocumentNode } from 'graphql';
import type { BrowserContext, Page } from 'playwright-core';
import type { ShopClient } from './flows';

const ROOT = join(__dirname, '..', '..');

/** The built component (`npm run build`), as the package ships it. */
export function builtComponent(): string {
  const file = join(ROOT, 'dist', 'storefront', 'index.js');
  if (!existsSync(file)) throw new Error(`no ${file}: run npm run build first`);
  return readFileSync(file, 'utf8');
}

/**
 * The Vendure adapter of docs/storefront.md ("Vendure (shop API)"), as written there: its TypeScript stripped by
 * esbuild, nothing else changed. The page runs it, so the docs stay true.
 */
export function docsVendureAdapter(): string {
  const docs = readFileSync(join(ROOT, 'docs', 'storefront.md'), 'utf8');
  const section = docs.slice(docs.indexOf('### Vendure (shop API)'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/storefront.md: no ts block under "Vendure (shop API)"');
  return transformSync(block[1], { loader: 'ts', format: 'esm' }).code;
}

/** The storefront's page server. */
export interface Storefront {
  /** Its origin, e.g. `http://127.0.0.1:41234`. */
  origin: string;
  /** The order confirmation page with the component, as Vendure's starters route it. */
  confirmationUrl(orderCode: string): string;
  close(): Promise<void>;
}

const PAGE_HEAD = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><link rel="icon" href="data:,">
  <meta name="viewport" content="width=device-width, initial-scale=1">`;

/** The package's import name mapped to the built file: the docs' `import` runs unchanged. */
const IMPORT_MAP = `<script type="importmap">${JSON.stringify({
  imports: { 'nestjs-invoice-payments/storefront': '/invoice-payment.js' },
})}</script>`;

function confirmationPage(adapter: string): string {
  return `${PAGE_HEAD}<title>Pedido recebido</title>${IMPORT_MAP}</head>
  <body><main><h1>Pedido recebido</h1><invoice-payment></invoice-payment></main>
  <script type="module">${adapter}</script></body></html>`;
}

/** Request headers that belong to one hop, not to the request. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/**
 * Passes `/shop-api` on to Vendure as a storefront's server does: the browser's cookies go along and Vendure's
 * `Set-Cookie` (its session cookie) comes back, so the session is the page's own.
 */
async function forward(vendureUrl: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(([name, v]) => typeof v === 'string' && !HOP_HEADERS.has(name)),
  ) as Record<string, string>;
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const answer = await fetch(`${vendureUrl}${req.url}`, { method: req.method, headers, body });
  res.writeHead(answer.status, {
    'Content-Type': answer.headers.get('content-type') ?? 'text/plain',
    'Set-Cookie': answer.headers.getSetCookie(),
  });
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/**
 * A Vendure storefront's page server on 127.0.0.1: `/` (an empty shop page), `/checkout/confirmation/:code` (the
 * component with the docs' adapter), `/invoice-payment.js` (the built component) and `/shop-api` passed to Vendure.
 */
export async function startStorefront(vendureUrl: string): Promise<Storefront> {
  const component = builtComponent();
  const page = confirmationPage(docsVendureAdapter());
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path.startsWith('/shop-api')) {
      return void forward(vendureUrl, req, res).catch((err: Error) => {
        res.writeHead(502, { 'Content-Type': 'text/plain' });
        res.end(err.message);
      });
    }
    const html = { 'Content-Type': 'text/html; charset=utf-8' };
    if (path === '/invoice-payment.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      return void res.end(component);
    }
    if (/^\/checkout\/confirmation\/[A-Z0-9]{1,64}$/.test(path))
      return void res.writeHead(200, html).end(page);
    if (path === '/')
      return void res.writeHead(200, html).end(`${PAGE_HEAD}<title>Loja</title></head><body></body>`);
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    confirmationUrl: (code) => `${origin}/checkout/confirmation/${encodeURIComponent(code)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The shop API from inside the page (its `fetch`, its cookies): the shopper's own session, as a storefront's
 * checkout has it. A new anonymous session is a browser without the store's cookies.
 */
export function pageShopClient(page: Page, context: BrowserContext): ShopClient {
  return {
    async query(document: DocumentNode, variables?: Record<string, unknown>) {
      const answer = (await page.evaluate(
        async ({ query, variables }) => {
          const res = await fetch('/shop-api', {
            method: 'POST',
            credentials: 'include',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ query, variables }),
          });
          return res.json();
        },
        { query: print(document), variables },
      )) as { data?: unknown; errors?: Array<{ message: string }> };
      if (answer.errors) throw new Error(answer.errors[0].message);
      return answer.data;
    },
    async asAnonymousUser() {
      await context.clearCookies();
    },
  };
}
