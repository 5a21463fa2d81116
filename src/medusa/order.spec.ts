import { DEFAULT_WIRE_PROFILE } from '../gateway/wire-profile';
import { CheckoutValidationError } from '../core/invoice.errors';
import { mapOrderToInvoice } from '../checkout/order-mapping';
import type { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { buildCheckoutData, checkoutRequestOf } from './order';
import type { MedusaProviderInput } from './types';
import { resolveCheckoutOptions } from '../options/checkout.options';

const customer = {
  id: 'cus_1',
  email: 'ana@example.com',
  first_name: 'Ana',
  last_name: 'Souza',
  phone: '11987654321',
  metadata: { cpf: '529.982.247-25' },
  billing_address: {
    address_1: 'Av. Paulista',
    city: 'São Paulo',
    province: 'SP',
    postal_code: '01310-100',
    country_code: 'br',
    metadata: { number: '1000', district: 'Bela Vista' },
  },
};

describe('buildCheckoutData (the order of a Medusa session, built on the server)', () => {
  it('takes the amount from Medusa and the customer from its context, ignoring what the client sends', () => {
    const data = buildCheckoutData({
      sessionId: 'payses_1',
      amountCents: 13480,
      currencyCode: 'brl',
      context: { customer },
      data: {
        method: 'pix',
        amount: 1,
        order: { id: 'evil', total: 1, items: [] },
        document: '00000000000',
      },
      defaultMethod: 'billet',
    });
    expect(data.method).toBe('pix');
    expect(data.order).toMatchObject({
      id: 'payses_1',
      reference: 'payses_1',
      currency_code: 'brl',
      total: 13480,
      items: [{ quantity: 1, unit_price: 13480, requires_shipping: false }],
      customer: { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25' },
      shipping_address: {
        address_1: 'Av. Paulista',
        number: '1000',
        district: 'Bela Vista',
        country_code: 'br',
      },
    });
  });

  it('names a guest without names by its billing address; none anywhere is refused, naming the field', () => {
    const build = (billing: Record<string, unknown>) =>
      buildCheckoutData({
        sessionId: 'payses_3',
        amountCents: 5990,
        currencyCode: 'brl',
        context: {
          customer: { ...customer, first_name: ' ', last_name: null, billing_address: billing },
        },
        defaultMethod: 'billet',
      });
    const guest = build({ ...customer.billing_address, first_name: 'Ana', last_name: 'Souza' });
    expect(guest.order.customer.name).toBe('Ana Souza');
    const nameless = build({ ...customer.billing_address, first_name: '  ' });
    expect(() =>
      mapOrderToInvoice(
        { amount: 5990, currency_code: 'brl', data: nameless },
        resolveCheckoutOptions({}),
        Date.now(),
        DEFAULT_WIRE_PROFILE.timeZone,
      ),
    ).toThrow(
      expect.objectContaining({
        fields: { 'order.customer.first_name': [expect.stringMatching(/is required/)] },
      }),
    );
  });

  it('falls back to the storefront document and the default method; reads a card choice', () => {
    const data = buildCheckoutData({
      sessionId: 'payses_2',
      amountCents: 5990,
      currencyCode: 'brl',
      context: { customer: { id: 'c', email: 'x@example.com', metadata: null } },
      data: {
        document: ' 52998224725 ',
        card: { token: 't', expiry: '12/40', holder_name: 'X' },
        installments: 3,
      },
      documentKeys: ['tax'],
      defaultMethod: 'card',
    });
    expect(data).toMatchObject({
      method: 'card',
      card: { token: 't', expiry: '12/40', holder_name: 'X' },
      installments: 3,
      order: { customer: { document: '52998224725' }, shipping_address: null },
    });
  });

  it.each([
    ['a number', 42, /must be a string/],
    ['a control character', 'ANA\u202E', /control characters/],
    ['300 characters', 'A'.repeat(300), /at most 120/],
  ])('storefront card data with %s as holder_name is a 400 naming card.holder_name', (_, holder, problem) => {
    const data = buildCheckoutData({
      sessionId: 'payses_3',
      amountCents: 5990,
      currencyCode: 'brl',
      context: { customer },
      data: { method: 'card', card: { token: 't', expiry: '12/40', holder_name: holder } },
      defaultMethod: 'card',
    });
    const request = { amount: 5990, currency_code: 'brl', data };
    const error = (() => {
      try {
        return mapOrderToInvoice(
          request,
          resolveCheckoutOptions(),
          Date.now(),
          DEFAULT_WIRE_PROFILE.timeZone,
        );
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(CheckoutValidationError);
    expect((error as CheckoutValidationError).fields).toEqual({
      'card.holder_name': [expect.stringMatching(problem)],
    });
  });

  describe('a guest (no customer in the context: Medusa gives the provider only a signed-in one)', () => {
    const cart = {
      id: 'cart_1',
      email: 'maria@example.com',
      billing_address: { first_name: 'Maria', last_name: 'Souza', phone: '11912345678', city: 'São Paulo' },
    };
    const build = (data: Record<string, unknown>) =>
      buildCheckoutData({
        sessionId: 'payses_g',
        amountCents: 5990,
        currencyCode: 'brl',
        context: {},
        data: { document: '52998224725', ...data },
        defaultMethod: 'pix',
        nameMax: 20,
      });

    it("is named by the cart's billing address; the cart's e-mail and phone; no address sent", () => {
      const data = build({ cart });
      expect(data.order.customer).toMatchObject({
        name: 'Maria Souza',
        email: 'maria@example.com',
        phone: '11912345678',
        document: '52998224725',
      });
      expect(data.order.shipping_address).toBeNull();
      const invoice = mapOrderToInvoice(
        { amount: 5990, currency_code: 'brl', data },
        resolveCheckoutOptions(),
        Date.now(),
        DEFAULT_WIRE_PROFILE.timeZone,
      );
      expect(invoice.params.client).toMatchObject({ name: 'Maria Souza', email: 'maria@example.com' });
    });

    it("without a billing address, takes the name and phone of the cart's shipping address", () => {
      const shipping = { first_name: 'Maria', last_name: 'Lima', phone: '11955554444' };
      const data = build({ cart: { ...cart, billing_address: null, shipping_address: shipping } });
      expect(data.order.customer).toMatchObject({ name: 'Maria Lima', phone: '11955554444' });
    });

    it("takes the name the storefront passed before the cart's; a signed-in customer's name before both", () => {
      expect(build({ cart, first_name: ' Maria ', last_name: 'S. Lima' }).order.customer.name).toBe(
        'Maria S. Lima',
      );
      const signedIn = buildCheckoutData({
        sessionId: 'payses_c',
        amountCents: 5990,
        currencyCode: 'brl',
        context: { customer },
        data: { cart, first_name: 'Outra' },
        defaultMethod: 'pix',
      });
      expect(signedIn.order.customer).toMatchObject({ name: 'Ana Souza', email: 'ana@example.com' });
    });

    it.each([
      ['too long', { first_name: 'M'.repeat(21) }, 'data.first_name', /at most 20 characters/],
      ['not a string', { last_name: 7 }, 'data.last_name', /must be a string/],
      ['a control character', { first_name: 'Maria\u0000' }, 'data.first_name', /control characters/],
    ])("the storefront's name %s is a 400 naming the field", (_, given, field, problem) => {
      expect(() => build({ cart, ...given })).toThrow(
        expect.objectContaining({ fields: { [field]: [expect.stringMatching(problem)] } }),
      );
    });

    it.each([
      ['a number', 52998224725, /must be a string/],
      ['an object', { cpf: '52998224725' }, /must be a string/],
      ['a control character', '529982247\u202E25', /control characters/],
    ])(
      "the storefront's document as %s is a 400 naming data.document, never ignored",
      (_, document, problem) => {
        expect(() => build({ cart, document })).toThrow(
          expect.objectContaining({ fields: { 'data.document': [expect.stringMatching(problem)] } }),
        );
        // Refused even when the signed-in customer has a CPF of its own, as data.first_name is.
        const signedIn = () =>
          buildCheckoutData({
            sessionId: 'payses_d',
            amountCents: 5990,
            currencyCode: 'brl',
            context: { customer },
            data: { cart, document },
            defaultMethod: 'pix',
          });
        expect(signedIn).toThrow(
          expect.objectContaining({ fields: { 'data.document': [expect.any(String)] } }),
        );
      },
    );

    it.each([
      ['"3" for a card', 'card', '3', /integer from 1 to 12/],
      ['2.5 for a card', 'card', 2.5, /integer from 1 to 12/],
      ['"3" for PIX', 'pix', '3', /must be 1/],
    ])(
      'installments %s reach the mapping and are a 400 naming installments',
      (_, method, installments, problem) => {
        const card = { token: 't', expiry: '12/40', holder_name: 'MARIA SOUZA' };
        const data = build({ cart, method, card, installments });
        expect(() =>
          mapOrderToInvoice(
            { amount: 5990, currency_code: 'brl', data },
            resolveCheckoutOptions({ methods: ['pix', 'card'], maxInstallments: 12 }),
            Date.now(),
            DEFAULT_WIRE_PROFILE.timeZone,
          ),
        ).toThrow(expect.objectContaining({ fields: { installments: [expect.stringMatching(problem)] } }));
      },
    );

    it('without a name anywhere is refused, naming order.customer.first_name', () => {
      const data = build({ cart: { ...cart, billing_address: null } });
      expect(() =>
        mapOrderToInvoice(
          { amount: 5990, currency_code: 'brl', data },
          resolveCheckoutOptions(),
          Date.now(),
          DEFAULT_WIRE_PROFILE.timeZone,
        ),
      ).toThrow(expect.objectContaining({ fields: { 'order.customer.first_name': [expect.any(String)] } }));
    });
  });
});

describe('checkoutRequestOf (the request the checkout gets for a Medusa session)', () => {
  const options = resolveCheckoutOptions({});
  const checkout = { current: async () => options } as unknown as InvoiceCreationService;
  const request = (address: Record<string, unknown>, amount: unknown = 50) =>
    checkoutRequestOf(
      checkout,
      {
        amount,
        currency_code: 'brl',
        context: { customer: { ...customer, billing_address: address } },
        data: { method: 'pix' },
      } as unknown as MedusaProviderInput,
      'payses_9',
      undefined,
    );
  const NOW = Date.parse('2026-11-30T15:00:00Z');

  // Audit: Medusa keeps free-form addresses; a saved one without a bairro, or with the state in words, blocked
  // every payment of a signed-in customer, naming a field the shopper cannot see.
  it.each([
    ['no bairro', { ...customer.billing_address, metadata: { number: '1000' } }],
    ['the state in words', { ...customer.billing_address, province: 'São Paulo' }],
  ])('leaves out a saved address the service would refuse (%s): the payment goes on', async (_, address) => {
    const { amount, currency_code, data } = await request(address);
    expect(data.order.shipping_address).toBeNull();
    const mapped = mapOrderToInvoice(
      { amount, currency_code, data },
      options,
      NOW,
      DEFAULT_WIRE_PROFILE.timeZone,
    );
    expect(mapped.params.client.address).toBeUndefined();
    expect(mapped.params.client.document).toBe('52998224725');
  });

  it('keeps a saved address the service takes', async () => {
    const { data } = await request(customer.billing_address);
    expect(data.order.shipping_address).toMatchObject({ district: 'Bela Vista', province: 'SP' });
  });

  it("refuses an amount with a fraction of a cent as the request's fault, naming amount", async () => {
    const err = await request(customer.billing_address, '33.3333333333').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CheckoutValidationError);
    expect((err as CheckoutValidationError).fields).toEqual({ amount: ['must be an amount in whole cents'] });
  });
});
