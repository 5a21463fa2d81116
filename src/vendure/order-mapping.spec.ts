import { DEFAULT_WIRE_PROFILE } from '../gateway/wire-profile';
import {
  DefaultOrderTaxCalculationStrategy,
  Order,
  OrderLevelTaxCalculationStrategy,
  OrderLine,
  type OrderTaxCalculationStrategy,
} from '@vendure/core';
import { mapOrderToInvoice } from '../checkout/order-mapping';
import { toCheckoutOrder } from './order-mapping';
import { resolveCheckoutOptions } from '../options/checkout.options';

/** The parts of a Vendure order the mapping reads, as `OrderService.findOne` loads them. */
function vendureOrder(overrides: Partial<Record<string, unknown>> = {}): Order {
  return {
    id: 7,
    code: 'ABC123',
    currencyCode: 'BRL',
    lines: [
      {
        id: 1,
        productVariantId: 3,
        productVariant: { sku: 'CAMISETA-M', name: 'Camiseta M' },
        featuredAsset: { preview: 'https://cdn.example/camiseta.jpg' },
        quantity: 2,
        unitPriceWithTax: 5990,
        linePriceWithTax: 11980,
        proratedLinePriceWithTax: 10782,
      },
      {
        id: 2,
        productVariantId: 4,
        productVariant: { sku: 'MEIA', name: 'Meia' },
        featuredAsset: { preview: '/assets/meia.jpg' },
        quantity: 3,
        // Tax rounded on the line, not the unit: 3 × 333 = 999, the line is 1000.
        unitPriceWithTax: 333,
        linePriceWithTax: 1000,
        proratedLinePriceWithTax: 900,
      },
    ],
    surcharges: [
      { id: 1, description: 'Embalagem para presente', priceWithTax: 500 },
      { id: 2, description: 'Desconto PIX', priceWithTax: -300 },
    ],
    subTotalWithTax: 10782 + 900 + 500 - 300,
    shippingWithTax: 1500,
    totalWithTax: 10782 + 900 + 500 - 300 + 1500,
    customer: { firstName: 'Maria', lastName: 'Silva', emailAddress: 'maria@example.com', phoneNumber: null },
    shippingAddress: {
      fullName: 'Maria Silva',
      streetLine1: 'Rua das Flores, 100',
      streetLine2: 'Centro',
      city: 'São Paulo',
      province: 'SP',
      postalCode: '01001-000',
      countryCode: 'BR',
    },
    ...overrides,
  } as unknown as Order;
}

describe('toCheckoutOrder (Vendure order → the checkout order)', () => {
  it('keeps cents, prorated line discounts, surcharges and shipping with tax, adding up to totalWithTax', () => {
    const order = toCheckoutOrder(vendureOrder(), { document: '52998224725', customerIp: '127.0.0.1' });
    expect(order).toMatchObject({
      id: '7',
      reference: 'ABC123',
      currency_code: 'BRL',
      total: 13382,
      shipping_total: 1500,
      discount_total: 1198 + 100 + 300,
      customer: { first_name: 'Maria', email: 'maria@example.com', document: '52998224725' },
      shipping_address: {
        address_1: 'Rua das Flores, 100',
        address_2: 'Centro',
        province: 'SP',
        country_code: 'BR',
      },
      customer_ip: '127.0.0.1',
    });
    expect(order.items).toEqual([
      expect.objectContaining({ id: 'CAMISETA-M', quantity: 2, unit_price: 5990, discount_total: 1198 }),
      // Not 3 × 333: one item of the line's exact price, so no cent is lost.
      expect.objectContaining({
        id: 'MEIA',
        title: '3 × Meia',
        quantity: 1,
        unit_price: 1000,
        discount_total: 100,
      }),
      expect.objectContaining({ title: 'Embalagem para presente', quantity: 1, unit_price: 500 }),
    ]);
    // Only absolute image URLs are sent.
    expect(order.items[0].thumbnail).toBe('https://cdn.example/camiseta.jpg');
    expect(order.items[1].thumbnail).toBeNull();
    // As the checkout reads them: `https://` alone is no URL (the checkout would refuse the order for it).
    const lines = [{ ...vendureOrder().lines[0], featuredAsset: { preview: 'https://' } }];
    expect(toCheckoutOrder(vendureOrder({ lines })).items[0].thumbnail).toBeNull();
  });

  it("is accepted by the module's own mapping: the amounts add up to the invoice total", () => {
    const order = toCheckoutOrder(vendureOrder(), { document: '52998224725' });
    const mapped = mapOrderToInvoice(
      { amount: order.total, currency_code: 'BRL', data: { order, method: 'pix' } },
      resolveCheckoutOptions({}),
      Date.now(),
      DEFAULT_WIRE_PROFILE.timeZone,
    );
    expect(mapped.totalCents).toBe(13382);
  });

  it('uses the address name only when the customer has none, and sends no address without a street', () => {
    const order = toCheckoutOrder(vendureOrder({ customer: null, shippingAddress: { fullName: 'João' } }));
    expect(order.customer.name).toBe('João');
    expect(order.shipping_address).toBeNull();
    // A customer whose names are only spaces has none either.
    const blank = { firstName: ' ', lastName: '  ', emailAddress: 'maria@example.com', phoneNumber: null };
    const named = toCheckoutOrder(vendureOrder({ customer: blank, shippingAddress: { fullName: 'João' } }));
    expect(named.customer.name).toBe('João');
  });

  describe("with Vendure's real entities and tax strategies", () => {
    /** A line of one unit at a tax-inclusive catalogue price (as Brazilian stores show them), 10 % tax. */
    function line(id: number, listPrice: number): OrderLine {
      return new OrderLine({
        id,
        productVariantId: id,
        productVariant: { sku: `SKU-${id}`, name: `Produto ${id}` },
        listPrice,
        listPriceIncludesTax: true,
        quantity: 1,
        adjustments: [],
        taxLines: [{ description: 'ICMS', taxRate: 10 }],
      } as unknown as OrderLine);
    }

    /** Two lines at `listPrice`, the totals computed by `strategy` as Vendure computes them. */
    function realOrder(listPrice: number, strategy: OrderTaxCalculationStrategy): Order {
      const order = new Order({
        id: 7,
        code: 'ABC123',
        currencyCode: 'BRL',
        lines: [line(1, listPrice), line(2, listPrice)],
        surcharges: [],
        shippingLines: [],
        customer: { firstName: 'Maria', lastName: 'Silva', emailAddress: 'maria@example.com' },
        shippingAddress: vendureOrder().shippingAddress,
      } as unknown as Order);
      Object.assign(order, strategy.calculateOrderTotals(order));
      return order;
    }

    function invoiceTotal(vendure: Order): number {
      const order = toCheckoutOrder(vendure, { document: '52998224725' });
      const request = { amount: order.total, currency_code: 'BRL', data: { order, method: 'pix' as const } };
      return mapOrderToInvoice(request, resolveCheckoutOptions({}), Date.now(), DEFAULT_WIRE_PROFILE.timeZone)
        .totalCents;
    }

    it('order-level tax rounded up (2 × R$ 10,06: lines 20,12, order 20,13): one more item for the cent', () => {
      const vendure = realOrder(1006, new OrderLevelTaxCalculationStrategy());
      expect(vendure.totalWithTax).toBe(2013);
      // The checkout takes it: its items, discounts and shipping add up to the total.
      expect(invoiceTotal(vendure)).toBe(2013);
      const order = toCheckoutOrder(vendure);
      expect(order.items).toHaveLength(3);
      expect(order.items[2]).toEqual({
        id: 'tax-rounding',
        title: 'Arredondamento de impostos',
        quantity: 1,
        unit_price: 1,
        requires_shipping: false,
      });
      expect(order.discount_total).toBe(0);
    });

    it('order-level tax rounded down (2 × R$ 10,07: lines 20,14, order 20,13): the cent goes as discount', () => {
      const vendure = realOrder(1007, new OrderLevelTaxCalculationStrategy());
      expect(vendure.totalWithTax).toBe(2013);
      // The checkout takes it: its items, discounts and shipping add up to the total.
      expect(invoiceTotal(vendure)).toBe(2013);
      const order = toCheckoutOrder(vendure);
      expect(order.items.map((item) => item.id)).toEqual(['SKU-1', 'SKU-2']);
      expect(order.discount_total).toBe(1);
    });

    it('the default strategy (tax rounded per line) adds nothing', () => {
      const vendure = realOrder(1006, new DefaultOrderTaxCalculationStrategy());
      expect(vendure.totalWithTax).toBe(2012);
      // The checkout takes it: its items, discounts and shipping add up to the total.
      expect(invoiceTotal(vendure)).toBe(2012);
      const order = toCheckoutOrder(vendure);
      expect(order.items.map((item) => item.id)).toEqual(['SKU-1', 'SKU-2']);
      expect(order.discount_total).toBe(0);
    });
  });
});
