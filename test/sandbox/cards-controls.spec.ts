import { getBoletoInfo } from '@brazilian-utils/brazilian-utils';
import type { WireErrorBody, WireInvoiceCurrent } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireInvoiceListResponse } from '../support/wire-responses';
import { startSandbox, TEST_CARDS, type SandboxServer } from '../../src/sandbox';
import { waitFor } from '../support/wait-for';
import { call, createBody, startReceiver } from './helpers';

type Json = Record<string, unknown>;

describe('sandbox: card payments (A12)', () => {
  let sandbox: SandboxServer;
  afterEach(() => sandbox.close());

  async function cardInvoice(number: string, webhook?: string) {
    const token = await call<{ token: string }>(
      sandbox.url,
      'POST',
      '/_sandbox/card-tokens',
      { number, holder: 'Ana', expiry: '12/30' },
      null,
    );
    expect(token.status).toBe(200);
    const card = { saved: 0, tokenize: 0, token: token.body.token, valid: '12/30', holder: { name: 'Ana' } };
    const res = await call<WireInvoiceCurrentResponse>(
      sandbox.url,
      'POST',
      '/invoices',
      createBody({ payment: { type: 3, card, webhook } }),
    );
    expect(res.body.invoice.status.code).toBe(1);
    return res.body.invoice;
  }

  it('processes an approved card 1 → 2 → 5 after answering, with a webhook per step', async () => {
    sandbox = await startSandbox({ webhookRetry: { baseDelayMs: 5 } });
    const receiver = await startReceiver();
    try {
      const inv = await cardInvoice(TEST_CARDS.approved, receiver.url);
      await waitFor(() => receiver.received.length === 3, 5_000, 'three card webhooks');
      expect(receiver.received.map((r) => r.body.invoice?.status.code)).toEqual([1, 2, 5]);
      expect(sandbox.controls.renderInvoice(inv.id)?.payment.dates.captured).toMatch(/^\d{4}-/);
    } finally {
      await receiver.close();
    }
  });

  it('denies 4000000000000002: 1 → 2 → 12', async () => {
    sandbox = await startSandbox();
    const inv = await cardInvoice(TEST_CARDS.denied);
    await waitFor(() => sandbox.controls.getInvoice(inv.id)?.statusCode === 12, 5_000, 'status 12');
    expect(sandbox.controls.getInvoice(inv.id)?.payment.paidCents).toBeNull();
  });

  it('leaves card invoices in 1 with autoProcessCards false, for the pay control to settle', async () => {
    sandbox = await startSandbox({ autoProcessCards: false });
    const inv = await cardInvoice(TEST_CARDS.approved);
    expect(sandbox.controls.getInvoice(inv.id)?.statusCode).toBe(1);
    const denied = await call<{ invoice: WireInvoiceCurrent }>(
      sandbox.url,
      'POST',
      `/_sandbox/invoices/${inv.id}/pay`,
      { approved: false },
      null,
    );
    expect(denied.body.invoice.status.code).toBe(12);
  });

  it('refuses card numbers that fail Luhn, bad expiry, and keeps only brand, BIN and last four', async () => {
    sandbox = await startSandbox();
    const bad = await call<WireErrorBody>(
      sandbox.url,
      'POST',
      '/_sandbox/card-tokens',
      { number: '4111111111111112', holder: 'A', expiry: '12/30' },
      null,
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toHaveProperty(['number']);
    const expired = await call<WireErrorBody>(
      sandbox.url,
      'POST',
      '/_sandbox/card-tokens',
      { number: TEST_CARDS.approved, holder: 'A', expiry: '01/20' },
      null,
    );
    expect(expired.body.errors).toHaveProperty(['expiry']);
    const ok = sandbox.controls.createCardToken({
      number: '5555 5555 5555 4444',
      holder: 'B',
      expiry: '11/29',
    });
    expect(ok).toMatchObject({ brand: 'mastercard', bin: '555555', last4: '4444' });
    const card = { saved: 0, tokenize: 0, token: ok.token, valid: '11/29', holder: { name: 'B' } };
    const res = await call<WireInvoiceCurrentResponse>(
      sandbox.url,
      'POST',
      '/invoices',
      createBody({ payment: { type: 3, card } }),
    );
    expect(JSON.stringify(res.body)).not.toContain('5555555555554444');
    expect(JSON.stringify(sandbox.controls.getInvoice(res.body.invoice.id))).not.toContain(
      '5555555555554444',
    );
  });
});

describe('sandbox: test controls (/_sandbox)', () => {
  let sandbox: SandboxServer;
  let now = new Date('2026-11-21T13:00:00Z');
  beforeEach(async () => {
    now = new Date('2026-11-21T13:00:00Z');
    sandbox = await startSandbox({ clock: () => now, autoProcessCards: false });
  });
  afterEach(() => sandbox.close());

  const newInvoice = async (payment: Json = {}) =>
    (await call<WireInvoiceCurrentResponse>(sandbox.url, 'POST', '/invoices', createBody({ payment }))).body
      .invoice;
  const control = (id: string, action: string, body: unknown = {}) =>
    call<{ success: boolean; invoice: WireInvoiceCurrent } & WireErrorBody>(
      sandbox.url,
      'POST',
      `/_sandbox/invoices/${id}/${action}`,
      body,
      null,
    );

  it('pay: PIX settles in 5 with an end-to-end id; bank slip may be paid by PIX or slip', async () => {
    const pix = await newInvoice();
    const paid = await control(pix.id, 'pay');
    expect(paid.status).toBe(200);
    expect(paid.body.invoice.status.code).toBe(5);
    expect(paid.body.invoice.pix.status).toBe('paid');
    expect(paid.body.invoice.pix.ete.id).toMatch(/^E\d{20}[0-9A-F]{11}$/);
    expect(paid.body.invoice.payment.total).toBe(21);
    const slip = await newInvoice({ type: 2 });
    expect((await control(slip.invoice_id, 'pay', { method: 'billet' })).body.invoice.status.code).toBe(5);
    const wrong = await control((await newInvoice()).id, 'pay', { method: 'billet' });
    expect(wrong.status).toBe(422);
    const failed = await control((await newInvoice()).id, 'pay', { approved: false });
    expect(failed.body.invoice.status.code).toBe(16);
    expect((await control(pix.id, 'pay')).status).toBe(409);
  });

  it('overdue: 1 → 15, the due day moved to yesterday (a slip gets its new line), and 409 from any other state', async () => {
    const inv = await newInvoice();
    expect((await control(inv.id, 'overdue')).body.invoice.status.code).toBe(15);
    expect(sandbox.controls.getInvoice(inv.id)?.dueDay).toBe('2026-11-20');
    const slip = await newInvoice({ type: 2, due_at: '2026-11-25' });
    const slipOverdue = (await control(slip.id, 'overdue')).body.invoice;
    expect(slipOverdue.due_at.day).toMatch(/^2026-11-20/);
    expect(slipOverdue.billet?.line).not.toBe(slip.billet?.line);
    expect(
      getBoletoInfo(slipOverdue.billet!.line, { referenceDate: now })?.expirationDate?.toISOString(),
    ).toMatch(/^2026-11-20/);
    const again = await control(inv.id, 'overdue');
    expect(again.status).toBe(409);
    expect(again.body.status_code).toBe(15);
  });

  it('moves invoices past their due day to 15 by the clock', async () => {
    const inv = await newInvoice({ due_at: '2026-11-22' });
    now = new Date('2026-11-23T02:59:00Z'); // still the 22nd in São Paulo
    await call(sandbox.url, 'GET', '/invoices');
    expect(sandbox.controls.getInvoice(inv.id)?.statusCode).toBe(1);
    now = new Date('2026-11-23T03:00:00Z');
    const list = await call<WireInvoiceListResponse>(sandbox.url, 'GET', '/invoices');
    expect(list.body.invoices[0].status.code).toBe(15);
    expect(await sandbox.controls.checkDueDates()).toBe(0);
  });

  it('contest: paid → 10; complete-refund: 7 → 8/9 only', async () => {
    const inv = await newInvoice();
    expect((await control(inv.id, 'contest')).status).toBe(409);
    await control(inv.id, 'pay');
    expect((await control(inv.id, 'contest', { reason: 'not_received' })).body.invoice.status.code).toBe(10);
    expect((await control(inv.id, 'complete-refund')).status).toBe(409);
  });

  it('status: sets any code, unlisted ones included, with a webhook', async () => {
    const receiver = await startReceiver();
    try {
      const inv = await newInvoice({ webhook: receiver.url });
      const res = await control(inv.id, 'status', { code: 11 });
      expect(res.body.invoice.status).toMatchObject({ code: 11, text: 'unknown' });
      await sandbox.controls.waitForDeliveries();
      expect(receiver.received.map((r) => r.body.invoice?.status.code)).toEqual([1, 11]);
      expect((await control(inv.id, 'status', { code: 'eleven' })).status).toBe(422);
    } finally {
      await receiver.close();
    }
  });

  it('returns the raw invoice, and 404 for an unknown one', async () => {
    const inv = await newInvoice();
    const raw = await call<{
      invoice: WireInvoiceCurrent;
      record: { grossCents: number; invoiceId: string };
    }>(sandbox.url, 'GET', `/_sandbox/invoices/${inv.id}`, undefined, null);
    expect(raw.body.record).toMatchObject({ grossCents: 2100, invoiceId: inv.invoice_id });
    expect(raw.body.invoice.id).toBe(inv.id);
    expect((await control('999999', 'pay')).status).toBe(404);
    expect((await call(sandbox.url, 'GET', '/_sandbox/nothing-here', undefined, null)).status).toBe(404);
  });

  it('reset forgets invoices and deliveries but keeps the default webhook token', async () => {
    const token = sandbox.controls.webhooks()[0].token;
    const before = await newInvoice();
    await call(sandbox.url, 'POST', '/_sandbox/reset', {}, null);
    const list = await call<WireInvoiceListResponse>(sandbox.url, 'GET', '/invoices');
    expect(list.body.pagination.total).toBe(0);
    expect(sandbox.deliveries()).toEqual([]);
    expect(sandbox.controls.webhooks().map((w) => w.token)).toEqual([token]);
    // Numbers never repeat, not even after a reset: a client's database may still hold the old ones.
    expect(Number((await newInvoice()).id)).toBeGreaterThan(Number(before.id));
  });

  it('issues tokens that expire by the clock, and exchanges client credentials (A5)', async () => {
    const short = sandbox.controls.issueToken(['invoice.read'], 60);
    const status = await call<{ active: boolean; scopes: string[]; expires_at: string }>(
      sandbox.url,
      'GET',
      '/auth/status',
      undefined,
      short,
    );
    expect(status.body).toMatchObject({
      active: true,
      scopes: ['invoice.read'],
      expires_at: '2026-11-21 10:01:00',
    });
    now = new Date('2026-11-21T13:01:00Z');
    expect((await call(sandbox.url, 'GET', '/invoices', undefined, short)).status).toBe(401);

    const basic = Buffer.from('sandbox-client:sandbox-secret').toString('base64');
    const issued = await call<{
      access_token: string;
      token_type: string;
      expires_in: number;
      scopes: string[];
    }>(sandbox.url, 'GET', '/auth/token', undefined, null, { Authorization: `Basic ${basic}` });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, success: true });
    expect((await call(sandbox.url, 'GET', '/invoices', undefined, issued.body.access_token)).status).toBe(
      200,
    );
    const wrong = Buffer.from('sandbox-client:wrong').toString('base64');
    const denied = await call<WireErrorBody>(sandbox.url, 'GET', '/auth/token', undefined, null, {
      Authorization: `Basic ${wrong}`,
    });
    expect(denied.status).toBe(401);
    expect(denied.body.message).not.toContain('wrong');
    const staticStatus = await call<{ expires_at: null }>(sandbox.url, 'GET', '/auth/status');
    expect(staticStatus.body.expires_at).toBeNull();
    expect((await call(sandbox.url, 'GET', '/auth/status', undefined, null)).status).toBe(401);
  });
});
