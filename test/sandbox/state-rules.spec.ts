import { getBoletoInfo } from '@brazilian-utils/brazilian-utils';
import type { WireErrorBody, WireInvoiceLegacyResponse } from '../../src/sandbox/wire.types';
import type { WireInvoiceCurrentResponse, WireTrackingResponse } from '../support/wire-responses';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { call, createBody } from './helpers';

type Json = Record<string, unknown>;

describe('sandbox: state rules (§3, §8, A8, A9, A11)', () => {
  let sandbox: SandboxServer;
  beforeAll(async () => {
    sandbox = await startSandbox({
      clock: () => new Date('2026-11-21T13:00:00Z'),
      autoProcessCards: false,
      tokens: [
        {
          token: 'sandbox-token',
          scopes: ['invoice.read', 'invoice.write', 'invoice.update', 'invoice.refund'],
        },
        { token: 'no-refund', scopes: ['invoice.read', 'invoice.write', 'invoice.update'] },
      ],
    });
  });
  afterAll(() => sandbox.close());

  async function newInvoice(payment: Json = {}) {
    const res = await call<WireInvoiceCurrentResponse>(
      sandbox.url,
      'POST',
      '/invoices',
      createBody({ payment }),
    );
    expect(res.status).toBe(200);
    return res.body.invoice;
  }
  async function cardInvoice() {
    const { token } = sandbox.controls.createCardToken({
      number: '4111111111111111',
      holder: 'Ana',
      expiry: '12/30',
    });
    return newInvoice({
      type: 3,
      card: { saved: 0, tokenize: 0, token, valid: '12/30', holder: { name: 'Ana' } },
    });
  }
  const patch = (body: unknown) =>
    call<WireInvoiceLegacyResponse & WireErrorBody>(sandbox.url, 'PATCH', '/invoices', body);
  const cancel = (id: string) =>
    call<WireInvoiceLegacyResponse & WireErrorBody>(sandbox.url, 'DELETE', '/invoices', { payment: { id } });
  const refund = (payment: Json, token?: string) =>
    call<WireInvoiceCurrentResponse & WireErrorBody>(sandbox.url, 'PUT', '/invoices', { payment }, token);
  const track = (body: unknown) =>
    call<WireTrackingResponse & WireErrorBody>(sandbox.url, 'POST', '/invoices/tracking', body);
  const code = (id: string) => sandbox.controls.getInvoice(id)?.statusCode;

  describe('change due date', () => {
    it('moves the due day of a PIX invoice in 1 and keeps the status', async () => {
      const inv = await newInvoice();
      const res = await patch({ payment: { invoice_id: inv.invoice_id, due_at: '2026-12-01' } });
      expect(res.status).toBe(200);
      expect(res.body.fatura.vencimento.dia).toBe('2026-12-01');
      expect(res.body.fatura.status.code).toBe(1);
    });

    it('issues a new bank slip carrying the new due date', async () => {
      const inv = await newInvoice({ type: 2, due_at: '2026-11-25' });
      const res = await patch({ payment: { invoice_id: inv.invoice_id, due_at: '2026-12-10' } });
      const slip = res.body.fatura.billet as { line: string };
      expect(slip.line).not.toBe(inv.billet?.line);
      const info = getBoletoInfo(slip.line, { referenceDate: new Date('2026-11-21') });
      expect(info?.expirationDate?.toISOString().slice(0, 10)).toBe('2026-12-10');
      expect(info?.amount).toBe(2100);
    });

    it('keeps an overdue invoice (15) in 15 with its new day, still payable (§3, A11)', async () => {
      const inv = await newInvoice({ type: 2 });
      await sandbox.controls.overdue(inv.id);
      const res = await patch({ payment: { invoice_id: inv.invoice_id, due_at: '2026-12-01' } });
      expect(res.status).toBe(200);
      expect(res.body.fatura.status.code).toBe(15);
      expect(res.body.fatura.vencimento.dia).toBe('2026-12-01');
      expect(code(inv.id)).toBe(15);
      expect((await sandbox.controls.pay(inv.id)).status.code).toBe(5);
    });

    it('answers 409 state_conflict for card invoices and for paid ones', async () => {
      const card = await cardInvoice();
      const a = await patch({ payment: { invoice_id: card.invoice_id, due_at: '2026-12-01' } });
      expect(a.status).toBe(409);
      expect(a.body).toMatchObject({ code: 'state_conflict', status_code: 1 });
      const paid = await newInvoice();
      await sandbox.controls.pay(paid.id);
      const b = await patch({ payment: { invoice_id: paid.invoice_id, due_at: '2026-12-01' } });
      expect(b.status).toBe(409);
      expect(b.body).toMatchObject({ code: 'state_conflict', status_code: 5 });
      expect(sandbox.controls.getInvoice(paid.id)?.dueDay).toBe(paid.due_at.day.slice(0, 10));
    });

    it('answers 404 for an unknown invoice_id and 422 naming missing or malformed fields', async () => {
      expect((await patch({ payment: { invoice_id: 'NOPE', due_at: '2026-12-01' } })).status).toBe(404);
      const inv = await newInvoice();
      const missing = await patch({ payment: { due_at: '2026-12-01' } });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toHaveProperty(['payment.invoice_id']);
      const bad = await patch({ payment: { invoice_id: inv.invoice_id, due_at: '2026-12-01 10:00:00' } });
      expect(bad.body.errors).toHaveProperty(['payment.due_at']);
      const past = await patch({ payment: { invoice_id: inv.invoice_id, due_at: '2026-11-01' } });
      expect(past.body.errors).toHaveProperty(['payment.due_at']);
    });
  });

  describe('cancel', () => {
    it.each([1, 2, 3, 4, 15])('cancels from %i to 6', async (from) => {
      const inv = await newInvoice();
      if (from !== 1) await sandbox.controls.setStatus(inv.id, from);
      const res = await cancel(inv.id);
      expect(res.status).toBe(200);
      expect(res.body.fatura.status).toEqual({ text: 'canceled' });
      expect(code(inv.id)).toBe(6);
    });

    it.each([5, 6, 7, 8, 9, 10, 12, 16])('answers 409 from %i', async (from) => {
      const inv = await newInvoice();
      await sandbox.controls.setStatus(inv.id, from);
      const res = await cancel(inv.id);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'state_conflict', status_code: from });
      expect(code(inv.id)).toBe(from);
    });

    it('finds the invoice by its id only (404 for the invoice_id or an unknown id)', async () => {
      const inv = await newInvoice();
      expect((await cancel(inv.invoice_id)).status).toBe(404);
      expect((await cancel('999999')).status).toBe(404);
      expect(code(inv.id)).toBe(1);
    });
  });

  describe('refund', () => {
    it('refunds a paid PIX invoice partially (8) and then fully (9)', async () => {
      const inv = await newInvoice();
      await sandbox.controls.pay(inv.id);
      const part = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 5 });
      expect(part.status).toBe(200);
      expect(part.body.invoice.status.code).toBe(8);
      expect(part.body.invoice.refunds).toMatchObject({ possbile: true, total: 5, brl: 'R$ 5,00' });
      expect(part.body.invoice.refunds.data).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(part.body.invoice.pix.ete.refund_id).toMatch(/^D\d{8}\d{12}[0-9A-F]{11}$/);
      const rest = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 16 });
      expect(rest.body.invoice.status.code).toBe(9);
      expect(rest.body.invoice.refunds).toMatchObject({ possbile: false, total: 21, brl: 'R$ 21,00' });
    });

    it('refuses an amount of zero or above what remains, naming payment.amount', async () => {
      const inv = await newInvoice();
      await sandbox.controls.pay(inv.id);
      await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 20 });
      for (const amount of [0, -1, 1.01, 1.001]) {
        const res = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount });
        expect(res.status).toBe(422);
        expect(res.body.errors).toHaveProperty(['payment.amount']);
      }
      expect(
        (await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 1 })).body.invoice.status.code,
      ).toBe(9);
    });

    it('refunds a card invoice at once', async () => {
      const inv = await cardInvoice();
      await sandbox.controls.pay(inv.id);
      const res = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 21 });
      expect(res.body.invoice.status.code).toBe(9);
    });

    it('keeps a bank slip refund in 7 until complete-refund, then 8 or 9', async () => {
      const inv = await newInvoice({ type: 2 });
      await sandbox.controls.pay(inv.id, { method: 'billet' });
      const res = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 1 });
      expect(res.body.invoice.status.code).toBe(7);
      expect((await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 1 })).status).toBe(409);
      expect((await sandbox.controls.completeRefund(inv.id)).status.code).toBe(8);
      await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 20 });
      expect((await sandbox.controls.completeRefund(inv.id)).status.code).toBe(9);
    });

    it('answers 409 before payment, 422 for missing or mismatched fields, 403 without invoice.refund', async () => {
      const inv = await newInvoice();
      const early = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 1 });
      expect(early.status).toBe(409);
      expect(early.body.status_code).toBe(1);
      await sandbox.controls.pay(inv.id);
      const missing = await refund({ id: inv.id, amount: 1 });
      expect(missing.body.errors).toHaveProperty(['payment.invoice_id']);
      const mismatch = await refund({ id: inv.id, invoice_id: 'OTHER', amount: 1 });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.errors).toHaveProperty(['payment.invoice_id']);
      const scope = await refund({ id: inv.id, invoice_id: inv.invoice_id, amount: 1 }, 'no-refund');
      expect(scope.status).toBe(403);
      expect(scope.body.required_scope).toBe('invoice.refund');
      expect(code(inv.id)).toBe(5);
    });
  });

  describe('tracking code', () => {
    it('is accepted in 4, 5 and 8 and answers the A9 body', async () => {
      for (const status of [4, 5, 8]) {
        const inv = await newInvoice();
        await sandbox.controls.setStatus(inv.id, status);
        const res = await track({
          payment: { invoice_id: inv.invoice_id },
          tracking: { code: 'BR123456789BR', carrier: 'Correios' },
        });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ success: true, error: false, type: 'tracking' });
        expect(res.body.tracking).toMatchObject({
          invoice_id: inv.invoice_id,
          code: 'BR123456789BR',
          carrier: 'Correios',
          url: null,
        });
      }
    });

    it('accepts the same code again without change, and replaces it with a new one', async () => {
      const inv = await newInvoice();
      await sandbox.controls.pay(inv.id);
      const body = { payment: { invoice_id: inv.invoice_id }, tracking: { code: 'AA111111111BR' } };
      const first = await track(body);
      const again = await track(body);
      expect(again.body.tracking).toEqual(first.body.tracking);
      const next = await track({
        ...body,
        tracking: { code: 'BB222222222BR', url: 'https://track.example/BB' },
      });
      expect(next.body.tracking).toMatchObject({ code: 'BB222222222BR', url: 'https://track.example/BB' });
      expect(sandbox.controls.getInvoice(inv.id)?.tracking?.code).toBe('BB222222222BR');
    });

    it('shows the last code on the invoice as a lookup answers it (A9 read-back), null before any', async () => {
      const inv = await newInvoice();
      await sandbox.controls.pay(inv.id);
      const listed = async () =>
        (
          await call<{ invoices: Array<{ tracking: unknown }> }>(
            sandbox.url,
            'GET',
            `/invoices?id=${encodeURIComponent(inv.invoice_id)}`,
          )
        ).body.invoices[0].tracking;
      expect(await listed()).toBeNull();
      await track({
        payment: { invoice_id: inv.invoice_id },
        tracking: { code: 'CC333333333BR', carrier: 'Correios' },
      });
      expect(await listed()).toMatchObject({ code: 'CC333333333BR', carrier: 'Correios', url: null });
    });

    it('answers 409 in other states, 404 for an unknown invoice, 422 without a code', async () => {
      const inv = await newInvoice();
      const early = await track({ payment: { invoice_id: inv.invoice_id }, tracking: { code: 'X' } });
      expect(early.status).toBe(409);
      expect(early.body.status_code).toBe(1);
      expect((await track({ payment: { invoice_id: 'NOPE' }, tracking: { code: 'X' } })).status).toBe(404);
      const missing = await track({ payment: { invoice_id: inv.invoice_id }, tracking: {} });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toHaveProperty(['tracking.code']);
      expect(sandbox.controls.getInvoice(inv.id)?.tracking).toBeNull();
    });
  });
});
