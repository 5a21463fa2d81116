import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { componentBundle } from './component-bundle';

/** The payment service's base URL, for the page's card script and its Content-Security-Policy. */
export const DEMO_GATEWAY_URL = Symbol('DEMO_GATEWAY_URL');

const ASSETS = join(__dirname, 'shop');
const read = (name: string) => readFileSync(join(ASSETS, name), 'utf8');
const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The demo's storefront page (`GET /shop`): the catalog, an order form filled in for a newcomer, and the shopper's
 * payment with `<invoice-payment>`. Its Content-Security-Policy lets in what a checkout page with this component
 * needs besides itself: the service's card script and its tokenization endpoint, and the PIX QR image.
 */
@Controller('shop')
export class ShopController {
  private readonly html: string;
  private readonly csp: string;

  constructor(@Inject(DEMO_GATEWAY_URL) gatewayUrl: string) {
    const gateway = new URL(gatewayUrl).origin;
    this.html = read('index.html').replace('{{GATEWAY_URL}}', escapeAttr(gatewayUrl.replace(/\/+$/, '')));
    this.csp = [
      "default-src 'self'",
      `script-src 'self' ${gateway}`,
      `connect-src 'self' ${gateway}`,
      `img-src 'self' data: ${gateway}`,
      "style-src 'self'",
      "base-uri 'self'",
      "form-action 'self'",
      "frame-ancestors 'self'",
      "object-src 'none'",
    ].join('; ');
  }

  @Get()
  page(@Res() res: Response): void {
    res.setHeader('Content-Security-Policy', this.csp);
    res.type('html').send(this.html);
  }

  @Get('app.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  app(): string {
    return read('app.js');
  }

  @Get('shop.css')
  @Header('Content-Type', 'text/css; charset=utf-8')
  css(): string {
    return read('shop.css');
  }

  @Get('invoice-payment.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  component(): Promise<string> {
    return componentBundle();
  }
}
