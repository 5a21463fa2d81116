import type { WireErrorBody } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

describe('sandbox: authentication, creation and listing', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    sandbox = await startSandbox({
      tokens: [
        {
          token: 'sandbox-token',
          scopes: ['invoice.read', 'invoice.write', 'invoice.update', 'invoice.refund'],
        },
        { token: 'read-only', scopes: ['invoice.read'] },
      ],
    });
  });
  afterAll(() => sandbox.close());

  it('listens on loopback', () => {
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
  });

  it('answers 401 without a token, with an unknown one, and with a malformed header', async () => {
    for (const token of [null, 'nope']) {
      const res = await call<WireErrorBody>(sandbox.url, 'GET', '/invoices', undefined, token);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: true, type: 'error', code: 'unauthorized' });
    }
    const basic = await call(sandbox.url, 'GET', '/invoices', undefined, null, {
      Authorization: 'Basic abc',
    });
    expect(basic.status).toBe(401);
  });

  it('answers 403 naming the missing scope', async () => {
    const res = await call<WireErrorBody>(sandbox.url, 'POST', '/invoices', createBody(), 'read-only');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', required_scope: 'invoice.write' });
    expect(res.body.message).toContain('invoice.write');
  });

  it('creates an invoice in status 1 and lists it', async () => {
    const created = await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', createBody());
    expect(created.status).toBe(200);
    expect(created.body.invoice.status).toMatchObject({ code: 1, text: 'pending', sub_text: 'pending' });
    expect(created.body.invoice.amount.gross).toBe(21);
    const list = await call<WireInvoiceListResponse>(sandbox.url, 'GET', '/invoices', undefined, 'read-only');
    expect(list.status).toBe(200);
    expect(list.body.invoices.map((i) => i.id)).toContain(created.body.invoice.id);
  });
});
