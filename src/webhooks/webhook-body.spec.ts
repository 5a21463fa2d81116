import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  currentBilletResponse,
  currentCardResponse,
  legacyDueDateResponse,
} from '../../test/gateway/fixtures';
import { boundedBody, dedupeKeyOf, readDelivery } from './webhook-body';
import { createWebhookRoute, type DeliveryReceiver } from './webhooks.module';

/** A bare server running only the webhook route; what the route passes on is answered 299. */
async function serve(receive: DeliveryReceiver, readFirst = false) {
  const route = createWebhookRoute('hooks/in', receive);
  const server = http.createServer((req, res) => {
    const go = () =>
      route(req, res, () => {
        res.statusCode = 299;
        res.end('next');
      });
    if (!readFirst) return go();
    req.resume().on('end', go);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (path: string, body: string) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', body });
    return { status: res.status, text: await res.text(), headers: res.headers };
  };
  return { post, close: () => new Promise((r) => server.close(r)) };
}

/** A receiver that reads the body within 64 bytes and answers with what it read. */
const bounded: DeliveryReceiver = async (req) => {
  const read = await boundedBody(req, 64);
  if (!read.ok) return { status: read.status, body: { statusCode: read.status, message: read.message } };
  const text = 'body' in read ? read.body.toString() : '';
  return { status: 200, body: { received: true, id: text, duplicate: false, state: 'pending' } };
};

describe('the webhook route on Express', () => {
  it('answers what the receiver says, on the path and its suffix only', async () => {
    const s = await serve(bounded);
    try {
      const a = await s.post('/api/hooks/in', '{"a":1}');
      expect(a.status).toBe(200);
      expect(JSON.parse(a.text)).toEqual({
        received: true,
        id: '{"a":1}',
        duplicate: false,
        state: 'pending',
      });
      expect(a.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await s.post('/other', '{}')).status).toBe(299);
    } finally {
      await s.close();
    }
  });

  it('answers 500 without the failure when the receiver throws', async () => {
    const s = await serve(() => Promise.reject(new Error('db down at postgres://user:secret@host')));
    try {
      const failed = await s.post('/hooks/in', '{}');
      expect(failed.status).toBe(500);
      expect(JSON.parse(failed.text)).toEqual({ statusCode: 500, message: 'Internal server error' });
    } finally {
      await s.close();
    }
  });

  it('leaves a body a host middleware already read to the Nest route', async () => {
    const s = await serve(bounded, true);
    try {
      expect((await s.post('/hooks/in', '{}')).status).toBe(299);
    } finally {
      await s.close();
    }
  });
});

describe('boundedBody: the one bound on a delivery body', () => {
  it('answers 413 past the limit, for a request and for bytes alike', async () => {
    const s = await serve(bounded);
    try {
      const big = await s.post('/hooks/in', 'x'.repeat(65));
      expect(big.status).toBe(413);
      expect(JSON.parse(big.text)).toEqual({ statusCode: 413, message: 'body exceeds 64 bytes' });
    } finally {
      await s.close();
    }
    expect(await boundedBody(Buffer.alloc(65), 64)).toEqual({
      ok: false,
      status: 413,
      message: 'body exceeds 64 bytes',
    });
    expect(await boundedBody(Buffer.from('{}'), 64)).toEqual({ ok: true, body: Buffer.from('{}') });
    expect(await boundedBody({ a: 1 }, 64)).toEqual({ ok: true, parsed: { a: 1 } });
  });
});

const meta = {
  event: 'invoice.update',
  delivery_id: 'd-1',
  webhook: 'default',
  sent_at: '2026-11-21 10:00:00',
};

describe('readDelivery', () => {
  it('reads the current shape the sandbox sends (A13)', () => {
    const d = readDelivery({ ...meta, invoice: currentBilletResponse().invoice });
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
    const d = readDelivery({ ...meta, fatura: legacyDueDateResponse().fatura });
    expect(d.invoice?.referrer).toBe(legacyDueDateResponse().fatura.referencia);
    expect(d.invoice?.id).toBe(legacyDueDateResponse().fatura.id);
  });

  it.each([
    ['data', 'current', { data: { ...meta, invoice: currentBilletResponse().invoice } }],
    ['payload', 'legacy', { payload: { ...meta, fatura: legacyDueDateResponse().fatura } }],
    ['data (bare invoice)', 'current', { ...meta, data: currentBilletResponse().invoice }],
    ['data (bare fatura)', 'legacy', { ...meta, data: legacyDueDateResponse().fatura }],
  ])('reads an event wrapper with %s around the %s shape', (_label, _shape, body) => {
    const d = readDelivery(body);
    expect(d.invoiceError).toBeNull();
    expect(d.invoice).not.toBeNull();
    expect(d.event).toBe('invoice.update');
    expect(d.dedupeKey).toBe('delivery:d-1');
  });

  it('lets the wrapper name the event over the inner body', () => {
    const d = readDelivery({ event: 'outer', data: { ...meta, invoice: currentBilletResponse().invoice } });
    expect(d.event).toBe('outer');
    expect(d.deliveryId).toBe('d-1');
  });

  it('redacts card secrets in the invoice it keeps', () => {
    const d = readDelivery({ ...meta, invoice: currentCardResponse().invoice });
    const raw = JSON.stringify(d.payload);
    const card = currentCardResponse().invoice.card;
    for (const secret of [card.number, card.token].filter((s): s is string => !!s)) {
      expect(raw).not.toContain(secret);
    }
    expect(raw).toContain(card.last4 as string);
  });

  it('recognizes a synthetic test delivery with no invoice', () => {
    const d = readDelivery({ ...meta, test: true, invoice: null });
    expect(d).toMatchObject({ test: true, invoice: null, invoiceError: null });
  });

  it('reports an unreadable invoice naming the field instead of throwing', () => {
    const invoice = { ...currentBilletResponse().invoice, status: { text: 'paid' } };
    const d = readDelivery({ ...meta, invoice });
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
    const a = readDelivery(body);
    const b = readDelivery(structuredClone(body));
    expect(a.dedupeKey).toMatch(/^hash:[0-9a-f]{64}$/);
    expect(b.dedupeKey).toBe(a.dedupeKey);
    const later = readDelivery({ ...body, sent_at: '2026-11-21 10:00:01' });
    expect(later.dedupeKey).not.toBe(a.dedupeKey);
    const paid = structuredClone(body);
    paid.invoice.status.code = 5;
    expect(readDelivery(paid).dedupeKey).not.toBe(a.dedupeKey);
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
      expect(readDelivery(body).dedupeKey).toBe(key);
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
