import { isLastPage } from './gateway.transport';
import { readPage } from './invoice.reader';
import { PayloadReader } from './payload.reader';
import { valueAt } from './json';
import { DEFAULT_WIRE_PROFILE, mergeWireProfile } from './wire-profile';
import { renderTemplate } from './wire-requests';
import { checkWireProfileData } from './wire-profile.check';

describe('wire templates', () => {
  const values = { id: '123', amount: 10.5, amount_cents: 1050, carrier: undefined, url: null };

  it('a whole-string placeholder keeps its type; an absent value drops the member', () => {
    const body = {
      payment: { id: '{id}', amount: '{amount}', cents: '{amount_cents}', carrier: '{carrier}' },
    };
    expect(renderTemplate(body, values)).toEqual({ payment: { id: '123', amount: 10.5, cents: 1050 } });
  });

  it('a placeholder inside a string is replaced by its text', () => {
    expect(renderTemplate({ ref: 'BR-{id}-{url}' }, values)).toEqual({ ref: 'BR-123-' });
  });

  it('an unknown placeholder throws instead of reaching the wire', () => {
    expect(() => renderTemplate({ x: '{nope}' }, values)).toThrow(/unknown placeholder \{nope\}/);
  });
});

describe('mergeWireProfile', () => {
  it('merges objects part by part, replaces templates, lookups and nulls whole', () => {
    const merged = mergeWireProfile(DEFAULT_WIRE_PROFILE, {
      list: { items: { invoices: 'data.items' }, pages: null },
      refund: { body: { invoice: '{id}' } },
      lookup: { byId: { get: '/invoices/{id}' } },
      credentialStatus: null,
    });
    expect(merged.list.items).toEqual({ ...DEFAULT_WIRE_PROFILE.list.items, invoices: 'data.items' });
    expect(merged.list.pages).toBeNull();
    expect(merged.list.total).toBe('pagination.total');
    expect(merged.refund).toEqual({ method: 'PUT', path: '/invoices', body: { invoice: '{id}' } });
    expect(merged.lookup.byId).toEqual({ get: '/invoices/{id}' });
    expect(merged.credentialStatus).toBeNull();
    expect(DEFAULT_WIRE_PROFILE.list.items.invoices).toBe('invoices'); // the default is untouched
  });

  it('reads dotted paths, "" being the value itself', () => {
    expect(valueAt({ a: { b: [1] } }, 'a.b')).toEqual([1]);
    expect(valueAt({ a: 1 }, '')).toEqual({ a: 1 });
    expect(valueAt({ a: 1 }, 'a.b')).toBeUndefined();
  });
});

describe('readPage with another list shape', () => {
  const r = new PayloadReader('listInvoices');
  const shape = mergeWireProfile(DEFAULT_WIRE_PROFILE, {
    list: { items: { invoices: 'result.rows' }, page: null, pages: null, total: null, limit: null },
  }).list;

  it('without counters: the page asked for, no total; a short page is the last', () => {
    const body = { result: { rows: [{ n: 1 }, { n: 2 }] } };
    const page = readPage(r, body, shape, 'result.rows', { page: 3, limit: 2 }, (x) => x);
    expect(page).toEqual({ items: [{ n: 1 }, { n: 2 }], page: 3, limit: 2, total: null, pages: null });
    expect(isLastPage(page)).toBe(false);
    expect(isLastPage({ ...page, items: [{ n: 3 }] })).toBe(true);
  });

  it('with a total only: pages derived from it', () => {
    const withTotal = { ...shape, total: 'meta.count' };
    const page = readPage(
      r,
      { result: { rows: [1] }, meta: { count: '5' } },
      withTotal,
      'result.rows',
      { page: 1, limit: 2 },
      (x) => x,
    );
    expect(page).toMatchObject({ total: 5, pages: 3 });
  });

  it('names the field when the items are not a list', () => {
    expect(() => readPage(r, { result: {} }, shape, 'result.rows', { page: 1, limit: 2 }, (x) => x)).toThrow(
      /unreadable result\.rows: not a list/,
    );
  });
});

describe('checkWireProfileData', () => {
  it('accepts the default profile as data', () => {
    expect(checkWireProfileData(DEFAULT_WIRE_PROFILE)).toEqual({});
  });

  it('names each bad part', () => {
    const errors = checkWireProfileData({
      paths: { invoices: 'https://elsewhere.example/steal', webhooks: '/ok' },
      list: { items: { invoices: 'a b' }, page: 3 },
      refund: { body: { x: '{card_number}' } },
      lookup: { byId: { get: '//evil' } },
      codes: { paymentTypes: { pix: -1 } },
      webhook: { invoice: 'data' },
      surprise: true,
    });
    expect(Object.keys(errors).sort()).toEqual([
      'wireProfile.codes.paymentTypes.pix',
      'wireProfile.list.items.invoices',
      'wireProfile.list.page',
      'wireProfile.lookup.byId.get',
      'wireProfile.paths.invoices',
      'wireProfile.refund.body',
      'wireProfile.surprise',
      'wireProfile.webhook.invoice',
    ]);
    expect(errors['wireProfile.refund.body'][0]).toMatch(/unknown placeholders \{card_number\}/);
  });

  it('refuses functions and oversized or deeply nested data', () => {
    expect(Object.keys(checkWireProfileData({ tracking: { body: () => ({}) } }))).toEqual([
      'wireProfile.tracking.body',
    ]);
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i++) deep = { d: deep };
    expect(Object.keys(checkWireProfileData({ tracking: { body: deep } }))).toEqual([
      'wireProfile.tracking.body',
    ]);
    expect(Object.keys(checkWireProfileData({ paths: { invoices: '/'.padEnd(40_000, 'a') } }))).toEqual([
      'wireProfile',
    ]);
  });

  it('takes the time zone the service counts in only when it is an IANA zone', () => {
    expect(checkWireProfileData({ timeZone: 'Asia/Tokyo' })).toEqual({});
    expect(checkWireProfileData({ timeZone: 'America/Sao_Paul' })).toEqual({
      'wireProfile.timeZone': ['must be an IANA time zone such as "America/Sao_Paulo"'],
    });
    expect(Object.keys(checkWireProfileData({ timeZone: '-03:00' }))).toEqual(['wireProfile.timeZone']);
  });

  it("takes the product discount's rule only as line or unit", () => {
    expect(checkWireProfileData({ productDiscount: 'unit' })).toEqual({});
    expect(checkWireProfileData({ productDiscount: 'line' })).toEqual({});
    for (const productDiscount of ['units', 'per-unit', 1, null]) {
      expect(checkWireProfileData({ productDiscount })).toEqual({
        'wireProfile.productDiscount': ['must be one of line, unit'],
      });
    }
  });
});
