import type { Order } from '@vendure/core';
import type { CheckoutOrder, CheckoutOrderItem } from '../checkout/types';

/** What the storefront adds to the order for the invoice. */
export interface OrderMappingExtras {
  /** The customer's CPF or CNPJ, from the customer record or from the storefront. */
  document?: string;
  customerIp?: string;
}

/**
 * A Vendure order as the module's checkout takes it. Vendure keeps money in integer minor units, as the module
 * does, so amounts pass unchanged:
 *
 * - each line at its price with tax before discounts (`linePriceWithTax`), its discount the difference to the
 *   prorated price with tax (line and order promotions, as Vendure shares them out over the lines);
 * - shipping with tax, after shipping promotions (`shippingWithTax`);
 * - surcharges: a positive one is an item, a negative one an order discount;
 * - the total is `totalWithTax`, which those add up to.
 *
 * A line whose price with tax is not its unit price times its quantity (tax rounded on the line, not the unit) is
 * sent as one item of `quantity × title`, so no cent is lost to rounding.
 *
 * Expects the order with `lines.productVariant`, `lines.featuredAsset`, `surcharges`, `customer` loaded, as
 * `OrderService.findOne` loads them.
 */
export function toCheckoutOrder(order: Order, extras: OrderMappingExtras = {}): CheckoutOrder {
  const items: CheckoutOrderItem[] = [];
  let discountTotal = 0;
  for (const line of order.lines ?? []) {
    const lineGross = line.linePriceWithTax;
    const discount = Math.max(0, lineGross - line.proratedLinePriceWithTax);
    const exact = line.unitPriceWithTax * line.quantity === lineGross;
    const title = line.productVariant?.name ?? `item ${line.id}`;
    const image = line.featuredAsset?.preview;
    items.push({
      id: String(line.productVariant?.sku || line.productVariantId || line.id),
      title: exact ? title : `${line.quantity} × ${title}`,
      thumbnail: image && /^https?:\/\//i.test(image) ? image : null,
      quantity: exact ? line.quantity : 1,
      unit_price: exact ? line.unitPriceWithTax : lineGross,
      discount_total: discount,
      requires_shipping: true,
    });
    discountTotal += discount;
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
