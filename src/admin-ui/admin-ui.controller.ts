import { Controller, Get, Inject, Param, Req, Res, Type } from '@nestjs/common';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import { INVOICE_PAYMENTS_OPTIONS } from '../options/resolve';
import { adminPage, adminUiAssets } from './assets';
import { ADMIN_UI_HEADERS } from './constants';

/** What the page's handlers need of the platform's reply (Express and Fastify both have these). */
interface Reply {
  status(code: number): Reply;
  header(name: string, value: string): Reply;
  send(body: string): unknown;
}

interface PageRequest {
  originalUrl?: string;
  url?: string;
}

const NO_SUCH_ASSET = JSON.stringify({
  statusCode: 404,
  error: 'Not Found',
  message: 'no such admin page file',
});

function send(reply: Reply, status: number, contentType: string, body: string, cache: string): void {
  reply.status(status);
  for (const [name, value] of Object.entries(ADMIN_UI_HEADERS)) reply.header(name, value);
  reply.header('Content-Type', contentType).header('Cache-Control', cache).send(body);
}

/**
 * The admin page: a static page and its scripts, served without the admin guard (they hold no data; every API
 * call the page makes carries the admin key and goes through the guard). Strict Content-Security-Policy.
 */
export class InvoicePaymentsAdminUiController {
  private readonly auth: 'key' | 'host';

  constructor(@Inject(INVOICE_PAYMENTS_OPTIONS) options: InvoicePaymentsModuleOptions) {
    this.auth = options.admin?.guard ? 'host' : 'key';
    adminUiAssets(); // read the files at start: a missing file fails the boot, not the first visit
  }

  /** `GET <prefix>/`: the page. Without the final slash, a redirect to it (the page's links are relative). */
  @Get()
  page(@Req() req: PageRequest, @Res() reply: Reply): void {
    const url = req.originalUrl ?? req.url ?? '/';
    const [path, query] = splitOnce(url, '?');
    if (!path.endsWith('/')) {
      reply
        .status(308)
        .header('Location', `${path}/${query === null ? '' : `?${query}`}`)
        .send('');
      return;
    }
    send(reply, 200, 'text/html; charset=utf-8', adminPage(this.auth), 'no-store');
  }

  /** `GET <prefix>/assets/<name>`: a file of the page, by name only. */
  @Get('assets/:name')
  asset(@Param('name') name: string, @Res() reply: Reply): void {
    const asset = name === 'index.html' ? undefined : adminUiAssets().get(name);
    if (!asset) {
      // A plain 404 with the page's headers; the name asked for is not repeated.
      send(reply, 404, 'application/json; charset=utf-8', NO_SUCH_ASSET, 'no-store');
      return;
    }
    send(reply, 200, asset.contentType, asset.body, 'no-cache');
  }
}

function splitOnce(text: string, separator: string): [string, string | null] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, null] : [text.slice(0, at), text.slice(at + 1)];
}

/** The page's controller mounted at `prefix` (a subclass per prefix, like the admin API's controllers). */
export function createAdminUiController(prefix: string): Type<InvoicePaymentsAdminUiController> {
  @Controller(prefix.replace(/^\/+|\/+$/g, ''))
  class PrefixedInvoicePaymentsAdminUiController extends InvoicePaymentsAdminUiController {}
  return PrefixedInvoicePaymentsAdminUiController;
}
