import type { CreateInvoiceParams } from '../types';
import type { ProductDiscountRule } from '../wire-profile';

type Product = CreateInvoiceParams['payment']['products'][number];

/**
 * The products with `discountCents` as the service reads a product's `discount` (wire profile `productDiscount`,
 * A1); the module's own request always holds the line's discount.
 *
 * - `line`: unchanged.
 * - `unit`: the line's discount divided by its quantity. When it does not divide, the line goes as two products
 *   (same id, title, image and price): the first `rest` units take one cent more off each than the others, so the
 *   units' discounts add up to the line's exactly and no discount needs a fraction of a cent. With `d` cents off
 *   `q` units: `rest = d mod q` units with `(d − rest) / q + 1` off each, `q − rest` units with `(d − rest) / q`.
 *
 * Every step is integer arithmetic (`%`, an exact division), never a rounded quotient. A split may double the
 * products on the wire: the spec shows no limit on their number (§8), and the order's own bound
 * (`checkout.maxItems`) counts the order's lines.
 */
export function productsUnder(rule: ProductDiscountRule, products: Product[]): Product[] {
  return rule === 'unit' ? products.flatMap(perUnit) : products;
}

function perUnit(product: Product): Product[] {
  const { quantity, discountCents } = product;
  const rest = discountCents % quantity;
  const each = (discountCents - rest) / quantity;
  if (rest === 0) return [{ ...product, discountCents: each }];
  return [
    { ...product, quantity: rest, discountCents: each + 1 },
    { ...product, quantity: quantity - rest, discountCents: each },
  ];
}
