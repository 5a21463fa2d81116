import type { Order } from '@vendure/core';
import type { CheckoutOrder, CheckoutOrderItem } from '../core/checkout.types';
import { isHttpUrl } from '../gateway/dto/validators';

/** What the storefront adds to the order for the invoice. */
export interface OrderMappingExtras {
  /** The customer's CPF or CNPJ, from the customer record or from the storefront. */
  document?: string;
  customerIp?: string;
}

/**
 * A Vendure order (loaded as `OrderService.findOne` loads it) as the checkout takes it; Vendure's integer minor units
 * pass unchanged. Lines at `linePriceWithTax`, discounted to the prorated price (promotions); a line whose tax was
 * rounded on the line goes as one item `quantity × title`, so no cent is lost. A negative surcharge is a discount.
 *
 * Vendure's `OrderLevelTaxCalculationStrategy` (3.6+) rounds tax once per rate on the summed net amounts, so the order's
 * `subTotalWithTax` may differ from the sum of its lines and surcharges by a cent or so per rate. That difference goes
 * as one more item (`tax-rounding`) when the order is worth more, or as more discount when it is worth less, so the
 * items add up to `totalWithTax`. With the default strategy the two agree and nothing is added.
 */
export function toCheckoutOrder(order: Order, extras: OrderMappingExtras = {}): CheckoutOrder {
  const items: CheckoutOrderItem[] = [];
  let discountTotal = 0;
  // What the lines and surcharges sent add up to, to compare with the subtotal Vendure charges.
  let sentSubTotal = 0;
  for (const line of order.lines ?? []) {
    const lineGross = line.linePriceWithTax;
    const discount = Math.max(0, lineGross - line.proratedLinePriceWithTax);
    const exact = line.unitPriceWithTax * line.quantity === lineGross;
    const title = line.productVariant?.name ?? `item ${line.id}`;
    const image = line.featuredAsset?.preview;
    items.push({
      id: String(line.productVariant?.sku || line.productVariantId || line.id),
      title: exact ? title : `${line.quantity} × ${title}`,
      thumbnail: image && isHttpUrl(image) ? image : null,
      quantity: exact ? line.quantity : 1,
      unit_price: exact ? line.unitPriceWithTax : lineGross,
      discount_total: discount,
      requires_shipping: true,
    });
    discountTotal += discount;
    sentSubTotal += line.proratedLinePriceWithTax;
  }
  for (const surcharge of order.surcharges ?? []) {
    if (surcharge.priceWithTax > 0) {
      items.push({
        id: `surcharge-${surcharge.id}`,
        title: surcharge.description,
        quantity: 1,
        unit_price: surcharge.priceWithTax,
        requires_shipping: false,
      });
    } else {
      discountTotal -= surcharge.priceWithTax;
    }
    sentSubTotal += surcharge.priceWithTax;
  }
  const rounding = order.subTotalWithTax - sentSubTotal;
  if (rounding > 0) {
    items.push({
      id: 'tax-rounding',
      title: 'Arredondamento de impostos',
      quantity: 1,
      unit_price: rounding,
      requires_shipping: false,
    });
  } else if (rounding < 0) {
    discountTotal -= rounding;
  }
  const customer = order.customer;
  const a = order.shippingAddress;
  return {
    id: String(order.id),
    display_id: order.code,
    // Vendure's order code is unique across the store and never reused: a safe invoice reference.
    reference: order.code,
    currency_code: order.currencyCode,
    total: order.totalWithTax,
    shipping_total: order.shippingWithTax,
    discount_total: discountTotal,
    items,
    customer: {
      first_name: customer?.firstName,
      last_name: customer?.lastName,
      // The billing name is the customer's; the address' name is only a fallback (it may be a recipient's).
      name: customer?.firstName?.trim() || customer?.lastName?.trim() ? undefined : a?.fullName || undefined,
      email: customer?.emailAddress || undefined,
      phone: customer?.phoneNumber || a?.phoneNumber || undefined,
      document: extras.document,
    },
    shipping_address: a?.streetLine1
      ? {
          address_1: a.streetLine1,
          address_2: a.streetLine2 || null,
          city: a.city,
          province: a.province,
          postal_code: a.postalCode,
          country_code: a.countryCode,
        }
      : null,
    customer_ip: extras.customerIp,
  };
}
