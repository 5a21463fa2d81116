import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox } from '../../src/sandbox';
import { call, createBody } from './helpers';

describe('sandbox: persistence across restarts (persistPath)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-persist-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps invoices, webhooks, card tokens and issued tokens, and continues the numbering', async () => {
    const persistPath = join(dir, 'state.sqlite');
    const first = await startSandbox({ persistPath });
    const a = (await call<WireInvoiceCurrentResponse>(first.url, 'POST', '/invoices', createBody())).body
      .invoice;
    const b = (
      await call<WireInvoiceCurrentResponse>(
        first.url,
        'POST',
        '/invoices',
        createBody({ payment: { type: 2 } }),
      )
    ).body.invoice;
    await first.controls.pay(a.id);
    const hook = first.controls.registerWebhook({ url: 'http://127.0.0.1:1/hook', merchant_token: 'm' });
    const defaultToken = first.controls.webhooks()[0].token;
    const card = first.controls.createCardToken({
      number: '4111111111111111',
      holder: 'Ana',
      expiry: '12/30',
    });
    const issued = first.controls.issueToken(['invoice.read']);
    await first.close();

    const second = await startSandbox({ persistPath, autoProcessCards: false });
    try {
      const list = await call<WireInvoiceListResponse>(second.url, 'GET', '/invoices', undefined, issued);
      expect(list.status).toBe(200);
      expect(list.body.invoices.map((i) => [i.id, i.status.code])).toEqual([
        [a.id, 5],
        [b.id, 1],
      ]);
      const again = list.body.invoices[1];
      expect(again.billet?.line).toBe(b.billet?.line);
      expect(again.pix.payload).toBe(b.pix.payload);
      expect(again.invoice_id).toBe(b.invoice_id);
      expect(again.links.url).toContain(second.url);
      expect(second.controls.webhooks().map((w) => [w.id, w.token])).toEqual([
        ['default', defaultToken],
        [hook.id, hook.token],
      ]);
      const valid = await call(second.url, 'OPTIONS', '/webhooks', { token: hook.token }, null);
      expect(valid.status).toBe(200);
      const withCard = await call<WireInvoiceCurrentResponse>(
        second.url,
        'POST',
        '/invoices',
        createBody({
          payment: {
            type: 3,
            card: { saved: 0, tokenize: 0, token: card.token, valid: '12/30', holder: { name: 'Ana' } },
          },
        }),
      );
      expect(withCard.status).toBe(200);
      expect(Number(withCard.body.invoice.id)).toBeGreaterThan(Number(b.id));
      const refund = await call<WireInvoiceCurrentResponse>(second.url, 'PUT', '/invoices', {
        payment: { id: a.id, invoice_id: a.invoice_id, amount: 21 },
      });
      expect(refund.body.invoice.status.code).toBe(9);
    } finally {
      await second.close();
    }

    const third = await startSandbox({ persistPath });
    try {
      expect(third.controls.getInvoice(a.id)?.statusCode).toBe(9);
      await third.controls.reset();
    } finally {
      await third.close();
    }
    const fourth = await startSandbox({ persistPath });
    try {
      expect(fourth.controls.getInvoice(a.id)).toBeUndefined();
      expect(fourth.controls.webhooks().map((w) => w.token)).toEqual([defaultToken]);
    } finally {
      await fourth.close();
    }
  });

  it('keeps state in memory only when no path is given, and never reuses an invoice number', async () => {
    const first = await startSandbox();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await call<WireInvoiceCurrentResponse>(first.url, 'POST', '/invoices', createBody())).body.invoice
          .id,
      );
    }
    await first.close();
    const second = await startSandbox();
    expect(second.controls.getInvoice(ids[0])).toBeUndefined();
    const next = await call<WireInvoiceCurrentResponse>(second.url, 'POST', '/invoices', createBody());
    await second.close();
    expect(new Set(ids).size).toBe(5);
    expect(Number(next.body.invoice.id)).toBeGreaterThan(Math.max(...ids.map(Number)));
  });
});
