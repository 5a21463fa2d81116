import { GatewayValidationError } from '../errors';
import type { CreateInvoiceParams } from '../types';
import {
  CHANGE_DUE_DATE,
  createInvoiceRules,
  CREATE_INVOICE,
  LIST_INVOICES,
  listInvoicesRules,
  REFUND,
  refundRules,
  toWireCreateInvoice,
  TRACKING,
} from './inputs';
import { DEFAULT_WIRE_PROFILE, type ProductDiscountRule } from '../wire-profile';
import { isCalendarDay, isTaxDocument, validateInput } from './validators';
import { validCreateParams } from '../../../test/gateway/fixtures';

/** Runs a validation and returns the field map of the error it must throw. */
function fieldsOf(run: () => unknown): Record<string, string[]> {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayValidationError);
    const e = err as GatewayValidationError;
    expect(e.sent).toBe(false);
    expect(e.message).toMatch(/nothing was sent$/);
    return e.fields;
  }
  throw new Error('expected a GatewayValidationError');
}

const create = (p: unknown) => () =>
  validateInput(
    CREATE_INVOICE,
    p,
    { operation: 'createInvoice', invoiceRef: 'referrer=x' },
    createInvoiceRules,
  );

describe('createInvoice input', () => {
  it('accepts valid params and returns them as the DTO', () => {
    const dto = create(validCreateParams())();
    expect(dto.payment.products[0].unitAmountCents).toBe(2550);
  });

  it.each<[string, string, (p: CreateInvoiceParams) => void]>([
    ['empty products', 'payment.products', (p) => (p.payment.products = [])],
    ['zero quantity', 'payment.products[0].quantity', (p) => (p.payment.products[0].quantity = 0)],
    ['fractional quantity', 'payment.products[0].quantity', (p) => (p.payment.products[0].quantity = 1.5)],
    [
      'negative price',
      'payment.products[0].unitAmountCents',
      (p) => (p.payment.products[0].unitAmountCents = -1),
    ],
    [
      'float cents',
      'payment.products[0].unitAmountCents',
      (p) => (p.payment.products[0].unitAmountCents = 10.5),
    ],
    [
      'line discount above total',
      'payment.products[0].discountCents',
      (p) => (p.payment.products[0].discountCents = 5101),
    ],
    ['invoice discount above total', 'payment.discountCents', (p) => (p.payment.discountCents = 5101)],
    ['blank id', 'payment.id', (p) => (p.payment.id = '  ')],
    ['missing referrer', 'payment.referrer', (p) => delete (p.payment as Partial<typeof p.payment>).referrer],
    ['unreal due date', 'payment.dueAt', (p) => (p.payment.dueAt = '2026-02-30')],
    ['due date with time', 'payment.dueAt', (p) => (p.payment.dueAt = '2026-02-03 10:00:00')],
    ['unknown method', 'payment.method', (p) => (p.payment.method = 'cash' as never)],
    ['card without card data', 'payment.card', (p) => (p.payment.method = 'card')],
    ['bad CPF check digits', 'client.document', (p) => (p.client.document = '52998224724')],
    ['formatted CPF', 'client.document', (p) => (p.client.document = '529.982.247-25')],
    ['domestic without document', 'client.document', (p) => delete p.client.document],
    ['physical without address', 'client.address', (p) => delete p.client.address],
    ['bad state', 'client.address.state', (p) => (p.client.address!.state = 'XX')],
    ['short CEP', 'client.address.zipcode', (p) => (p.client.address!.zipcode = '0100100')],
    ['two-letter country', 'client.address.country', (p) => (p.client.address!.country = 'BR')],
    ['bad webhook URL', 'payment.webhook', (p) => (p.payment.webhook = 'not a url')],
    ['negative shipping', 'shippingCents', (p) => (p.shippingCents = -5)],
    ['zero installments', 'payment.installments', (p) => (p.payment.installments = 0)],
  ])('%s → names %s', (_name, field, mutate) => {
    const params = validCreateParams();
    mutate(params);
    const fields = fieldsOf(create(params));
    expect(Object.keys(fields)).toContain(field);
  });

  it('checks the card expiry as MM/YY', () => {
    const params = validCreateParams();
    params.payment.method = 'card';
    for (const valid of ['13/30', '1/30', '12/2030', '00/30']) {
      params.payment.card = { token: 'tok', valid, holderName: 'MARIA' };
      expect(Object.keys(fieldsOf(create(params)))).toEqual(['payment.card.valid']);
    }
    params.payment.card = { token: 'tok', valid: '12/30', holderName: 'MARIA' };
    expect(() => create(params)()).not.toThrow();
  });

  it('requires the e-mail, not the document, of an international customer (A4)', () => {
    const params = validCreateParams();
    params.client.address = { ...params.client.address!, country: 'PRT', state: 'LX', zipcode: '1000001' };
    delete params.client.document;
    delete params.client.email;
    expect(fieldsOf(create(params))).toEqual({
      'client.email': ['is required for international customers (A4)'],
    });
    params.client.email = 'joao@example.pt';
    expect(() => create(params)()).not.toThrow();
  });

  it('accepts an alphanumeric CNPJ', () => {
    const params = validCreateParams();
    params.client.document = '12ABC34501DE35';
    expect(() => create(params)()).not.toThrow();
  });

  it('refuses non-objects and never echoes values in messages', () => {
    expect(fieldsOf(create(null))).toEqual({ params: ['must be an object'] });
    const params = validCreateParams();
    params.client.document = 'SECRET-VALUE-123';
    const err = (() => {
      try {
        create(params)();
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message).not.toContain('SECRET-VALUE-123');
    expect(JSON.stringify(err)).not.toContain('SECRET-VALUE-123');
  });
});

describe('other inputs', () => {
  it('list: page size 1..100, real dates, ordered range', () => {
    const list = (p: unknown) => () =>
      validateInput(LIST_INVOICES, p, { operation: 'listInvoices' }, listInvoicesRules);
    expect(Object.keys(fieldsOf(list({ limit: 101 })))).toEqual(['limit']);
    expect(Object.keys(fieldsOf(list({ limit: 0 })))).toEqual(['limit']);
    expect(Object.keys(fieldsOf(list({ page: 0 })))).toEqual(['page']);
    expect(Object.keys(fieldsOf(list({ createdFrom: '2026-13-01' })))).toEqual(['createdFrom']);
    expect(Object.keys(fieldsOf(list({ createdFrom: '2026-02-02', createdTo: '2026-02-01' })))).toEqual([
      'createdTo',
    ]);
    expect(() => list({ limit: 100, page: 3, createdFrom: '2024-02-29' })()).not.toThrow();
    expect(
      Object.keys(
        fieldsOf(() => validateInput(LIST_INVOICES, { limit: 500 }, { operation: 'listConsumers' })),
      ),
    ).toEqual(['limit']);
  });

  it('refund: positive amount, not above what is refundable', () => {
    const refund = (p: unknown) => () =>
      validateInput(REFUND, p, { operation: 'refundInvoice' }, refundRules);
    expect(Object.keys(fieldsOf(refund({ id: '1', invoiceId: 'a', amountCents: 0 })))).toEqual([
      'amountCents',
    ]);
    expect(
      Object.keys(fieldsOf(refund({ id: '1', invoiceId: 'a', amountCents: 501, refundableCents: 500 }))),
    ).toEqual(['amountCents']);
    expect(Object.keys(fieldsOf(refund({ id: '', invoiceId: 'a', amountCents: 1 })))).toEqual(['id']);
    expect(() => refund({ id: '1', invoiceId: 'a', amountCents: 500, refundableCents: 500 })()).not.toThrow();
  });

  it('due date: YYYY-MM-DD only; tracking: code and invoice id required', () => {
    const due = (p: unknown) => () => validateInput(CHANGE_DUE_DATE, p, { operation: 'changeDueDate' });
    expect(Object.keys(fieldsOf(due({ invoiceId: 'a', dueAt: '2026-12-01T00:00:00Z' })))).toEqual(['dueAt']);
    expect(Object.keys(fieldsOf(due({ invoiceId: 'a', dueAt: '01/12/2026' })))).toEqual(['dueAt']);
    const track = (p: unknown) => () => validateInput(TRACKING, p, { operation: 'addTrackingCode' });
    expect(Object.keys(fieldsOf(track({ invoiceId: 'a', code: '' })))).toEqual(['code']);
    expect(Object.keys(fieldsOf(track({ invoiceId: 'a', code: 'X', url: 'ftp://x' })))).toEqual(['url']);
  });

  it('calendar days and tax documents', () => {
    expect(isCalendarDay('2024-02-29')).toBe(true);
    expect(isCalendarDay('2023-02-29')).toBe(false);
    expect(isCalendarDay('2023-2-28')).toBe(false);
    expect(isTaxDocument('11222333000181')).toBe(true);
    expect(isTaxDocument('11.222.333/0001-81')).toBe(false);
  });
});

describe("the create request under the wire profile's productDiscount (A1)", () => {
  type WireProduct = { id: string; title: string; qnt: number; discount: number; amount: number };
  /** R$ 50,00 a unit, `quantity` units, `discountCents` off the line, and a plain line after it. */
  function wireProducts(rule: ProductDiscountRule, quantity: number, discountCents: number): WireProduct[] {
    const p = validCreateParams();
    p.payment.products = [
      { id: 'p1', title: 'Mug', quantity, discountCents, unitAmountCents: 5000 },
      { id: 'p2', title: 'Book', quantity: 1, discountCents: 0, unitAmountCents: 1990 },
    ];
    const body = toWireCreateInvoice(p, { ...DEFAULT_WIRE_PROFILE, productDiscount: rule });
    return (body.payment as { products: WireProduct[] }).products;
  }
  /** Cents a product takes off when the service reads its discount per unit, from the wire text (no float sum). */
  const unitCentsOff = (p: WireProduct) => {
    const [units, decimals = ''] = String(p.discount).split('.');
    return p.qnt * (Number(units) * 100 + Number(decimals.padEnd(2, '0')));
  };

  it("line (the default): each product as given, its discount the line's", () => {
    expect(DEFAULT_WIRE_PROFILE.productDiscount).toBe('line');
    expect(wireProducts('line', 2, 1000)).toEqual([
      { id: 'p1', title: 'Mug', qnt: 2, discount: 10, amount: 50 },
      { id: 'p2', title: 'Book', qnt: 1, discount: 0, amount: 19.9 },
    ]);
  });

  it("unit: a discount that divides by the quantity goes as each unit's share", () => {
    expect(wireProducts('unit', 2, 1000)).toEqual([
      { id: 'p1', title: 'Mug', qnt: 2, discount: 5, amount: 50 },
      { id: 'p2', title: 'Book', qnt: 1, discount: 0, amount: 19.9 },
    ]);
  });

  it("unit: one that does not divide splits the line in two, whole cents adding up to the line's", () => {
    // 10,00 off 3 units: one unit 3,34 off, two units 3,33 off (3,34 + 2 × 3,33 = 10,00).
    const split = wireProducts('unit', 3, 1000);
    expect(split).toEqual([
      { id: 'p1', title: 'Mug', qnt: 1, discount: 3.34, amount: 50 },
      { id: 'p1', title: 'Mug', qnt: 2, discount: 3.33, amount: 50 },
      { id: 'p2', title: 'Book', qnt: 1, discount: 0, amount: 19.9 },
    ]);
    for (const [quantity, discountCents] of [
      [7, 100],
      [3, 1],
      [9, 14_999],
      [1000, 999_999],
    ]) {
      const products = wireProducts('unit', quantity, discountCents).filter((p) => p.id === 'p1');
      expect(products.length).toBeLessThanOrEqual(2);
      expect(products.reduce((sum, p) => sum + p.qnt, 0)).toBe(quantity);
      expect(products.reduce((sum, p) => sum + unitCentsOff(p), 0)).toBe(discountCents);
      expect(products.every((p) => /^\d+(\.\d{1,2})?$/.test(String(p.discount)))).toBe(true);
    }
  });
});
