import { STATUS_TABLE } from '../domain/status-table';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { shopperViewOf } from './shopper-view';

const ZONE = 'America/Sao_Paulo';
/** 10:00 in São Paulo on 2026-11-29. */
const NOW = new Date('2026-11-29T13:00:00.000Z');

function record(overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  return Object.assign(new InvoiceRecord(), {
    id: 'rec_1',
    method: 'pix',
    creationState: 'created',
    statusCode: 1,
    currency: 'BRL',
    amountCents: 12_345,
    gatewayId: '1234',
    pixPayload: '000201abc',
    pixImage: 'https://service/qr.png',
    dueDate: '2026-11-30',
    installments: 1,
    amountMismatch: false,
    ...overrides,
  });
}

const view = (overrides: Partial<InvoiceRecord> = {}, now = NOW) =>
  shopperViewOf(record(overrides), { serviceZone: ZONE, now });

describe('the shopper view of a record', () => {
  it("shows a waiting PIX with its exact amount and its expiry at the end of its due day in the service's zone", () => {
    expect(view()).toEqual({
      method: 'pix',
      state: 'waiting',
      amount: '123.45',
      currency: 'BRL',
      invoiceNumber: '1234',
      pix: { payload: '000201abc', image: 'https://service/qr.png', expiresAt: '2026-12-01T03:00:00.000Z' },
      billet: null,
      card: null,
      renewable: false,
      orderUrl: null,
    });
  });

  it.each(Object.values(STATUS_TABLE).map((row) => [row.code, row.shopper]))(
    'takes status %i as the table says: %s',
    (code, state) => {
      expect(view({ statusCode: code, method: 'card', dueDate: null }).state).toBe(state);
    },
  );

  it('expires a waiting PIX past the end of its due day, and offers a new code (also shortly before)', () => {
    expect(view({ dueDate: '2026-11-28' })).toMatchObject({ state: 'expired', renewable: true });
    const late = new Date('2026-12-01T02:55:00.000Z'); // 23:55 on the due day
    expect(view({}, late)).toMatchObject({ state: 'waiting', renewable: true });
    expect(view({ statusCode: 15, dueDate: '2026-11-29' })).toMatchObject({
      state: 'expired',
      renewable: true,
    });
  });

  it("counts the due day where the service counts it: a service in Tokyo ends it 12 hours before São Paulo's", () => {
    const at = new Date('2026-11-30T15:30:00.000Z');
    const tokyo = shopperViewOf(record(), { serviceZone: 'Asia/Tokyo', now: at });
    expect(tokyo.pix?.expiresAt).toBe('2026-11-30T15:00:00.000Z');
    expect(tokyo.state).toBe('expired');
    expect(tokyo.renewable).toBe(true);
    expect(view({}, at).state).toBe('waiting');
  });

  it('shows an overdue invoice whose due day moved past today as waiting again (a renewal)', () => {
    expect(view({ statusCode: 15, dueDate: '2026-11-30' })).toMatchObject({
      state: 'waiting',
      renewable: false,
    });
    expect(view({ statusCode: 15, method: 'billet', dueDate: '2026-12-02' }).state).toBe('waiting');
  });

  it('never offers a new code for a paid PIX, a card or a bank slip', () => {
    expect(view({ statusCode: 5, dueDate: '2026-11-28' })).toMatchObject({ state: 'paid', renewable: false });
    expect(view({ method: 'billet', dueDate: '2026-11-28' })).toMatchObject({
      state: 'expired',
      renewable: false,
    });
  });

  it('keeps a creation not settled processing, a refused one failed, a paid amount mismatch processing', () => {
    expect(view({ creationState: 'unknown', statusCode: null }).state).toBe('processing');
    expect(view({ creationState: 'failed', statusCode: null }).state).toBe('failed');
    expect(view({ statusCode: 5, amountMismatch: true }).state).toBe('processing');
    expect(view({ statusCode: 13 }).state).toBe('processing'); // a code the spec does not list
  });

  it('shows the bank slip and the card', () => {
    const slip = view({
      method: 'billet',
      pixPayload: null,
      pixImage: null,
      billetLine: '1'.repeat(47),
      billetBarcode: '2'.repeat(44),
      billetUrl: 'https://service/slip.pdf',
    });
    expect(slip).toMatchObject({
      pix: null,
      billet: {
        line: '1'.repeat(47),
        barcode: '2'.repeat(44),
        url: 'https://service/slip.pdf',
        dueAt: '2026-11-30',
      },
    });
    const card = view({
      method: 'card',
      statusCode: 5,
      cardBrand: 'visa',
      cardLast4: '1111',
      installments: 3,
    });
    expect(card).toMatchObject({
      state: 'paid',
      pix: null,
      card: { brand: 'visa', last4: '1111', installments: 3 },
    });
  });
});
