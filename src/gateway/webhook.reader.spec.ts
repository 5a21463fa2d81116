import { inspect } from 'node:util';
import {
  currentBilletResponse,
  currentCardResponse,
  legacyDueDateResponse,
} from '../../test/gateway/fixtures';
import { dedupeKeyOf, readDelivery, readWebhookHeaderLines, webhookLinesOf } from './webhook.reader';
import { DEFAULT_WIRE_PROFILE } from './wire-profile';

const meta = {
  event: 'invoice.update',
  delivery_id: 'd-1',
  webhook: 'default',
  sent_at: '2026-11-21 10:00:00',
};

describe('readDelivery', () => {
  it('reads the current shape the sandbox sends (A13)', () => {
    const d = readDelivery({ ...meta, invoice: currentBilletResponse().invoice }, DEFAULT_WIRE_PROFILE);
    expect(d).toMatchObject({
      event: 'invoice.update',
      deliveryId: 'd-1',
      webhookId: 'default',
      sentAt: '2026-11-21 10:00:00',
      test: false,
      invoiceError: null,
      dedupeKey: 'delivery:d-1',
    });
    expect(d.invoice?.id).toBe('123456');
    expect(d.invoice?.referrer).toBe('order-42');
  });

  it('reads the legacy shape (fatura)', () => {
    const d = readDelivery({ ...meta, fatura: legacyDueDateResponse().fatura }, DEFAULT_WIRE_PROFILE);
    expect(d.invoice?.referrer).toBe(legacyDueDateResponse().fatura.referencia);
    expect(d.invoice?.id).toBe(legacyDueDateResponse().fatura.id);
  });

  it.each([
    ['data', 'current', { data: { ...meta, invoice: currentBilletResponse().invoice } }],
    ['payload', 'legacy', { payload: { ...meta, fatura: legacyDueDateResponse().fatura } }],
    ['data (bare invoice)', 'current', { ...meta, data: currentBilletResponse().invoice }],
    ['data (bare fatura)', 'legacy', { ...meta, data: legacyDueDateResponse().fatura }],
  ])('reads an event wrapper with %s around the %s shape', (_label, _shape, body) => {
    const d = readDelivery(body, DEFAULT_WIRE_PROFILE);
    expect(d.invoiceError).toBeNull();
    expect(d.invoice).not.toBeNull();
    expect(d.event).toBe('invoice.update');
    expect(d.dedupeKey).toBe('delivery:d-1');
  });

  it('lets the wrapper name the event over the inner body', () => {
    const d = readDelivery(
      { event: 'outer', data: { ...meta, invoice: currentBilletResponse().invoice } },
      DEFAULT_WIRE_PROFILE,
    );
    expect(d.event).toBe('outer');
    expect(d.deliveryId).toBe('d-1');
  });

  /** A card invoice carrying a full number and a token: what must never be kept or printed. */
  const withCardSecrets = () => {
    const invoice = currentCardResponse().invoice;
    invoice.card = { ...invoice.card, number: '4111111111111111', token: 'card-token-secret' };
    return invoice;
  };
  const SECRETS = ['4111111111111111', 'card-token-secret', '411111'];

  it('redacts card secrets in the invoice it keeps', () => {
    const raw = JSON.stringify(
      readDelivery({ ...meta, invoice: withCardSecrets() }, DEFAULT_WIRE_PROFILE).payload,
    );
    for (const secret of SECRETS) expect(raw).not.toContain(secret);
    expect(raw).toContain('"last4":"1111"');
  });

  it('redacts the kept invoice once, when it is read, and shows no card secret however it is printed', () => {
    const d = readDelivery({ ...meta, invoice: withCardSecrets() }, DEFAULT_WIRE_PROFILE);
    const printed = [
      inspect(d, { depth: null }),
      inspect(d, { depth: null, getters: true }),
      JSON.stringify(d),
    ];
    for (const text of printed) {
      for (const secret of SECRETS) expect(text).not.toContain(secret);
    }
    expect(d.payload).toBe(d.payload);
  });

  it('recognizes a synthetic test delivery with no invoice', () => {
    const d = readDelivery({ ...meta, test: true, invoice: null }, DEFAULT_WIRE_PROFILE);
    expect(d).toMatchObject({ test: true, invoice: null, invoiceError: null });
  });

  it('reports an unreadable invoice naming the field instead of throwing', () => {
    const invoice = { ...currentBilletResponse().invoice, status: { text: 'paid' } };
    const d = readDelivery({ ...meta, invoice }, DEFAULT_WIRE_PROFILE);
    expect(d.invoice).toBeNull();
    expect(d.invoiceError).toMatch(/status/);
    expect(d.dedupeKey).toBe('delivery:d-1');
  });

  it('keys a delivery without delivery_id by invoice, status, event and sent_at', () => {
    const body = {
      event: 'invoice.update',
      sent_at: '2026-11-21 10:00:00',
      invoice: currentBilletResponse().invoice,
    };
    const a = readDelivery(body, DEFAULT_WIRE_PROFILE);
    const b = readDelivery(structuredClone(body), DEFAULT_WIRE_PROFILE);
    expect(a.dedupeKey).toMatch(/^hash:[0-9a-f]{64}$/);
    expect(b.dedupeKey).toBe(a.dedupeKey);
    const later = readDelivery({ ...body, sent_at: '2026-11-21 10:00:01' }, DEFAULT_WIRE_PROFILE);
    expect(later.dedupeKey).not.toBe(a.dedupeKey);
    const paid = structuredClone(body);
    paid.invoice.status.code = 5;
    expect(readDelivery(paid, DEFAULT_WIRE_PROFILE).dedupeKey).not.toBe(a.dedupeKey);
  });

  it('keys a body without delivery_id the same in every shape: the stored keys stay what they are', () => {
    // Pinned: rows already in the inbox were keyed this way, so a retry must still find its row.
    const m = { event: 'invoice.update', sent_at: '2026-11-21 10:00:00' };
    const key = 'hash:e0d441a409c3817e5a0a2e7dc4a344b3ad609fe70d1c373379dc083c2fb5a93c';
    for (const body of [
      { ...m, invoice: currentBilletResponse().invoice },
      { ...m, fatura: legacyDueDateResponse().fatura },
      { data: { ...m, invoice: currentBilletResponse().invoice } },
      { payload: { ...m, fatura: legacyDueDateResponse().fatura } },
    ]) {
      expect(readDelivery(body, DEFAULT_WIRE_PROFILE).dedupeKey).toBe(key);
    }
  });

  it('hashes an overlong delivery_id so the key fits its column', () => {
    const key = dedupeKeyOf({
      deliveryId: 'x'.repeat(500),
      invoiceId: null,
      statusCode: null,
      event: null,
      sentAt: null,
    });
    expect(key).toMatch(/^delivery#[0-9a-f]{64}$/);
    expect(key.length).toBeLessThanOrEqual(160);
  });
});

const line = (merchant: string, service: string) => Buffer.from(`${merchant}:${service}`).toString('base64');

describe('readWebhookHeaderLines', () => {
  it('tells the token line from the id line in either order, and splits at the first colon', () => {
    for (const lines of [
      ['wh_1', line('m', 'svc:with:colons')],
      [line('m', 'svc:with:colons'), 'wh_1'],
      [`wh_1, ${line('m', 'svc:with:colons')}`],
    ]) {
      expect(readWebhookHeaderLines(lines)).toEqual({
        webhookId: 'wh_1',
        token: { merchant: 'm', service: 'svc:with:colons' },
        problem: null,
      });
    }
  });

  it('does not take a base64-looking webhook id for the token', () => {
    // "abcd" is valid base64 but decodes to bytes without a colon.
    expect(readWebhookHeaderLines(['abcd', line('', 's')]).webhookId).toBe('abcd');
  });

  it('says why there is no usable token', () => {
    expect(readWebhookHeaderLines(['wh_1']).problem).toBe('no Webhook header line carries a token');
    expect(readWebhookHeaderLines([line('a', 's1'), line('b', 's2')]).problem).toBe(
      'several different Webhook tokens',
    );
    expect(readWebhookHeaderLines([line('m', '')]).problem).toBe('the token has an empty service part');
  });
});

describe('webhookLinesOf', () => {
  it('reads a plain header record in any letter case, joined or as an array', () => {
    expect(webhookLinesOf({ webhook: 'wh_1, abc=' })).toEqual(['wh_1, abc=']);
    expect(webhookLinesOf({ Webhook: ['wh_1', 'abc='], other: 'x' })).toEqual(['wh_1', 'abc=']);
  });
});
