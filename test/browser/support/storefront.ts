import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page, Request } from 'playwright-core';

/** Where the storefront tests write their screenshots (gitignored). */
export const STOREFRONT_SHOTS = join(__dirname, '..', '..', '..', 'test-results', 'storefront');

/** A full-page screenshot at the page's current width, as `<name>.png`. */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(STOREFRONT_SHOTS, { recursive: true });
  const path = join(STOREFRONT_SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The component on the page (Playwright's CSS locators pierce its open shadow root). */
export function component(page: Page): Locator {
  return page.locator('invoice-payment');
}

/** Waits until the component's status line reads `text` (e.g. "Pagamento confirmado"), or fails at `timeout`. */
export async function statusReads(page: Page, text: string, timeout = 10_000): Promise<void> {
  await component(page).locator('[part~=status]', { hasText: text }).waitFor({ timeout });
}

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's WCAG 2.1 A/AA rules over the page (shadow roots included), answering the serious and critical findings.
 * axe is evaluated through the browser's debugging protocol, which the page's Content-Security-Policy does not
 * govern, so the page is tested with its real CSP.
 */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  await page.evaluate(`${AXE_SOURCE}\n;void 0`);
  const result = await page.evaluate<AxeResults>(
    "axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } })",
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => String(n.target)) }));
}

interface AxeResults {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }>;
}

let reactBundle: Promise<string> | undefined;

/** The React 19 test page's script: react, react-dom and the component, bundled by esbuild's JSX transform. */
export function reactPageScript(): Promise<string> {
  reactBundle ??= build({
    entryPoints: [join(__dirname, 'react-page.jsx')],
    bundle: true,
    format: 'esm',
    write: false,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0].text);
  return reactBundle;
}

let componentOnly: Promise<string> | undefined;

/** The component alone, bundled from source as a plain page loads it. */
export function componentScript(): Promise<string> {
  componentOnly ??= build({
    entryPoints: [join(__dirname, '..', '..', '..', 'src', 'storefront', 'index.ts')],
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0].text);
  return componentOnly;
}

/** A host page's own little server. */
export interface PageServer {
  /** The page's URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves a host page (`/page.html`) and its script (any `.js`) on 127.0.0.1, and passes every other request on to the
 * store, as a storefront's server passes `/invoice-payments/...` to its backend: the page calls the status route on
 * its own origin.
 */
export async function startPageServer(storeUrl: string, html: string, script: string): Promise<PageServer> {
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/page.html' || path.endsWith('.js')) {
      res.writeHead(200, {
        'Content-Type': path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8',
      });
      return void res.end(path.endsWith('.js') ? script : html);
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name, v]) => typeof v === 'string' && name !== 'host'),
      ) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${storeUrl}${path}`, { method: req.method, headers, body });
      res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/page.html`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A request as the page sent it: where to, with what headers and body. */
export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The browser's own object, for its answer. */
  request: Request;
}

/** Records every request `page` makes from now on (fetches, scripts, images...), in order. */
export function recordRequests(page: Page): SentRequest[] {
  const sent: SentRequest[] = [];
  page.on('request', (request) =>
    sent.push({
      method: request.method(),
      url: request.url(),
      headers: request.headers(),
      body: request.postData() ?? '',
      request,
    }),
  );
  return sent;
}

/**
 * Whether `secret` travels in the request, in its URL, a header or its body: a card number with or without its
 * spaces; a short value (a CVV) as a whole word, not a run of digits inside a longer one.
 */
export function carries(r: SentRequest, secret: string): boolean {
  const text = [r.url, r.body, ...Object.values(r.headers)].join('\n');
  if (secret.length >= 12) return text.replace(/\s+/g, '').includes(secret.replace(/\s+/g, ''));
  return text.split(/[^0-9A-Za-z]+/).includes(secret);
}
