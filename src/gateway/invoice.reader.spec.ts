import {
  currentBilletResponse,
  currentCardResponse,
  legacyCancelResponse,
  legacyCardResponse,
  legacyDueDateResponse,
} from '../../test/gateway/fixtures';
import { GatewayResponseError } from './errors';
import { invoiceAnswer, normalizeInvoice } from './invoice.reader';
import { PayloadReader, UnknownAmountsLog } from './payload.reader';
import { DEFAULT_WIRE_PROFILE } from './wire-profile';

/** Lets a test put a wrong type where the wire type says otherwise. */
const loose = (o: object) => o as unknown as Record<string, unknown>;

describe('normalizeInvoice: current shape (§2.1)', () => {
  it('reads a NUL in the wording of the service as U+FFFD (PostgreSQL cannot store it; the report must still apply)', () => {
    const body = currentBilletResponse();
    body.invoice.status.text = 'pa\u0000id';
    body.invoice.status.title = '\u0000';
    const inv = normalizeInvoice(body);
    expect(inv.status.text).toBe('pa\uFFFDid');
    expect(inv.status.title).toBe('\uFFFD');
    expect(inv.status.code).toBe(1);
  });

  it('reads every field of a creation response', () => {
    const body = currentBilletResponse();
    const inv = normalizeInvoice(body);
    expect(inv).toEqual({
      id: '123456',
      uuid: '9f0c6a1e-77a1-4a43-9a7c-3d2f1c4f7b10',
      invoiceId: 'inv_8H2kQ',
      token: 'tok_invoice_abc',
      referrer: 'order-42',
      currency: 'BRL',
      status: {
        code: 1,
        text: 'pending',
        subText: 'pending',
        title: 'Aguardando pagamento',
        description: 'A fatura aguarda o pagamento',
      },
      method: null, // a slip line beside a PIX payload: the method asked for decides (createInvoice sets it)
      amounts: {
        grossCents: 123456,
        netCents: 120010,
        feesCents: 3446,
        discountCents: 0,
        shippingCents: 1590,
        paidCents: null,
      },
      pix: {
        image: 'https://pay.example.com/qr/123456.png',
        payload: body.invoice.pix.payload,
        status: 'qr_code_created',
        endToEndId: null,
      },
      billet: {
        line: '23793.38128 60000.000003 00000.000400 1 84340000012345',
        barcode: '23791843400000123453381260000000000000000040',
        url: 'https://pay.example.com/b/123456.pdf',
      },
      card: null,
      installments: 1,
      dueDate: '2026-11-24',
      originalDueDate: '2026-11-24',
      createdAt: '2026-11-21 09:59:58',
      paymentUrl: 'https://pay.example.com/i/123456',
      refunds: { possible: null, totalCents: null, date: null },
      source: { shape: 'current', version: '3.4' },
      raw: body,
    });
  });

  it('accepts the bare invoice object and a webhook delivery body alike', () => {
    const body = currentBilletResponse();
    const fromEnvelope = normalizeInvoice(body);
    const bare = normalizeInvoice(body.invoice);
    const delivery = normalizeInvoice({ event: 'invoice.update', delivery_id: 'd1', invoice: body.invoice });
    for (const inv of [bare, delivery]) {
      expect({ ...inv, raw: null, source: null }).toEqual({ ...fromEnvelope, raw: null, source: null });
      expect(inv.source).toEqual({ shape: 'current', version: null });
    }
  });

  it('falls back to billet.image for the slip URL, and infers pix when there is no slip line', () => {
    const body = currentBilletResponse();
    body.invoice.billet = { ...body.invoice.billet!, download: null };
    expect(normalizeInvoice(body).billet?.url).toBe('https://pay.example.com/b/123456.png');
    Object.assign(body.invoice, { billet: null });
    const inv = normalizeInvoice(body);
    expect(inv.method).toBe('pix');
    expect(inv.billet).toBeNull();
  });

  it('keeps brand and last four digits of a card, nothing more, and scrubs number/token/bin from raw', () => {
    const body = currentCardResponse();
    body.invoice.card.token = 'card-token-secret';
    const inv = normalizeInvoice(body);
    expect(inv.method).toBe('card');
    expect(inv.card).toEqual({ brand: 'visa', last4: '1111' });
    expect(inv.status.code).toBe(5);
    expect(inv.amounts.paidCents).toBe(123456);
    expect(inv.pix).toBeNull();
    const rawText = JSON.stringify(inv.raw);
    expect(rawText).not.toContain('card-token-secret');
    expect(rawText).not.toContain('411111');
    expect(body.invoice.card.token).toBe('card-token-secret'); // the caller's object is untouched
  });

  it('takes last4 from a masked number when last4 is absent', () => {
    const body = currentCardResponse();
    body.invoice.card.last4 = null;
    body.invoice.card.number = '************4242';
    expect(normalizeInvoice(body).card).toEqual({ brand: 'visa', last4: '4242' });
  });

  it('reads refunds, including the spec spelling `possbile`', () => {
    const body = currentCardResponse();
    body.invoice.refunds = {
      possbile: true,
      total: 10.5,
      brl: 'R$ 10,50',
      data: '2026-11-22 10:00:00',
    } as never;
    expect(normalizeInvoice(body).refunds).toEqual({
      possible: true,
      totalCents: 1050,
      date: '2026-11-22 10:00:00',
    });
    body.invoice.refunds = { possbile: false, total: null, brl: 'R$ 1.234,56', data: null } as never;
    expect(normalizeInvoice(body).refunds).toEqual({ possible: false, totalCents: 123456, date: null });
  });

  it('reads a uuid sent as a number as a string', () => {
    const body = currentBilletResponse();
    loose(body.invoice).uuid = 77;
    expect(normalizeInvoice(body).uuid).toBe('77');
  });
});

describe('normalizeInvoice: the method', () => {
  it('a PIX answer that also carries a slip block is not read as a bank slip', () => {
    const body = currentBilletResponse();
    expect(normalizeInvoice(body).method).toBeNull();
    loose(body.invoice).payment_type = 1;
    expect(normalizeInvoice(body).method).toBe('pix');
  });

  it('an explicit method field follows the profile codes, or a name', () => {
    const body = currentBilletResponse();
    const codes = {
      paymentTypes: { pix: 10, billet: 20, card: 30 },
      productTypes: { physical: 1, digital: 2 },
    };
    loose(body.invoice).payment_type = 20;
    expect(normalizeInvoice(body, 'x', codes).method).toBe('billet');
    loose(body.invoice).payment_type = 'pix';
    expect(normalizeInvoice(body, 'x', codes).method).toBe('pix');
    loose(body.invoice).payment_type = 99;
    expect(normalizeInvoice(body, 'x', codes).method).toBeNull();
  });
});

describe('normalizeInvoice: legacy shape (§2.2)', () => {
  it('reads every field of a due-date response', () => {
    const body = legacyDueDateResponse();
    const inv = normalizeInvoice(body);
    expect(inv).toEqual({
      id: '123456',
      uuid: '987654',
      invoiceId: 'inv_8H2kQ',
      token: null,
      referrer: 'order-42',
      currency: 'BRL',
      status: {
        code: 1,
        text: 'pending',
        subText: 'pending',
        title: 'Aguardando pagamento',
        description: 'A fatura aguarda o pagamento',
      },
      method: 'pix',
      amounts: {
        grossCents: 123456,
        netCents: 120010,
        feesCents: 3446,
        discountCents: 0,
        shippingCents: null,
        paidCents: null,
      },
      pix: {
        image: 'https://pay.example.com/qr/123456.png',
        payload: body.fatura.pix.payload,
        status: 'pending',
        endToEndId: 'E12345678202611211000abcdef12345',
      },
      billet: { line: null, barcode: null, url: 'https://pay.example.com/b/123456.pdf' },
      card: null,
      installments: 1,
      dueDate: '2026-11-30',
      originalDueDate: '2026-11-24',
      createdAt: '2026-11-21 09:59:58',
      paymentUrl: 'https://pay.example.com/i/123456',
      refunds: { possible: false, totalCents: 0, date: null },
      source: { shape: 'legacy', version: '1.9' },
      raw: body,
    });
  });

  it('reads a cancellation response whose status has only text as code 6, without uuid', () => {
    const inv = normalizeInvoice(legacyCancelResponse());
    expect(inv.status).toEqual({ code: 6, text: 'canceled', subText: null, title: null, description: null });
    expect(inv.uuid).toBeNull();
    expect(inv.source.shape).toBe('legacy');
  });

  it('reads the bare fatura object', () => {
    const body = legacyDueDateResponse();
    const inv = normalizeInvoice(body.fatura);
    expect(inv.source).toEqual({ shape: 'legacy', version: null });
    expect(inv.dueDate).toBe('2026-11-30');
    expect(inv.referrer).toBe('order-42');
  });

  it('maps cartao to brand and the masked number’s last four digits, and scrubs raw', () => {
    const inv = normalizeInvoice(legacyCardResponse());
    expect(inv.method).toBe('card');
    expect(inv.card).toEqual({ brand: 'visa', last4: '1111' });
    expect(inv.billet).toBeNull();
    const rawText = JSON.stringify(inv.raw);
    expect(rawText).not.toContain('card-token-secret');
    expect(rawText).not.toContain('411111******1111');
  });

  it('reads a billet object with a line in the legacy shape as billet when no PIX payload stands beside it', () => {
    const body = legacyDueDateResponse();
    loose(body.fatura).billet = {
      line: '2379...',
      barcode: '2379',
      download: null,
      image: null,
    };
    expect(normalizeInvoice(body).method).toBeNull();
    loose(body.fatura).pix = null;
    const inv = normalizeInvoice(body);
    expect(inv.method).toBe('billet');
    expect(inv.billet).toEqual({
      line: '2379...',
      barcode: '2379',
      url: 'https://pay.example.com/b/123456.pdf',
    });
  });
});

describe('normalizeInvoice: amounts decided on, amounts only shown (A1)', () => {
  /** A paid R$ 2,00 bank slip: the flat R$ 3,49 fee leaves a negative net. */
  const smallSlip = () => {
    const body = currentBilletResponse();
    body.invoice.amount = { gross: 2, net: -1.49, fees: 3.49, discount: 0, shipping: '0.00' };
    body.invoice.payment.total = 2;
    return body;
  };

  it('reads a negative net as negative cents, in either shape', () => {
    expect(normalizeInvoice(smallSlip()).amounts).toMatchObject({
      grossCents: 200,
      netCents: -149,
      paidCents: 200,
    });
    const legacy = legacyDueDateResponse();
    legacy.fatura.valores.liquido = '-1.49';
    expect(normalizeInvoice(legacy).amounts.netCents).toBe(-149);
  });

  it('reads an amount finer than a cent as unknown, never rounded, and names its field (only) for the log', () => {
    const body = smallSlip();
    loose(body.invoice.amount).fees = 0.0198;
    loose(body.invoice.amount).net = '1.9802';
    const r = new PayloadReader('findInvoiceById');
    const inv = invoiceAnswer(r, { body }, DEFAULT_WIRE_PROFILE);
    expect(inv.amounts).toMatchObject({ grossCents: 200, netCents: null, feesCents: null, paidCents: 200 });
    expect([...r.unknownAmounts]).toEqual(['amount.net', 'amount.fees']);
    const warned: string[] = [];
    const log = new UnknownAmountsLog({
      log: () => {},
      error: () => {},
      warn: (m: string) => warned.push(m),
    });
    log.log(r);
    log.log(r);
    expect(warned).toEqual([
      expect.stringMatching(/^findInvoiceById: the service's amount\.net is finer than a cent/),
      expect.stringMatching(/^findInvoiceById: the service's amount\.fees is finer than a cent/),
    ]);
    expect(warned.join()).not.toMatch(/1\.9802|0\.0198/);
  });

  it.each([
    [
      'a negative gross',
      (b: Body) => (b.invoice.amount.gross = -2),
      /invoice\.amount\.gross: amount below zero/,
    ],
    [
      'a sub-cent gross',
      (b: Body) => (b.invoice.amount.gross = 2.001),
      /invoice\.amount\.gross: not a decimal/,
    ],
    [
      'a negative paid',
      (b: Body) => (b.invoice.payment.total = -2),
      /invoice\.payment\.total: amount below zero/,
    ],
    [
      'a sub-cent paid',
      (b: Body) => (b.invoice.payment.total = 1.999),
      /invoice\.payment\.total: not a decimal/,
    ],
  ])('still refuses the invoice for %s', (_name, mutate, problem) => {
    const body = smallSlip();
    mutate(body);
    expect(() => normalizeInvoice(body)).toThrow(GatewayResponseError);
    expect(() => normalizeInvoice(body)).toThrow(problem);
  });
});

type Body = ReturnType<typeof currentBilletResponse>;
