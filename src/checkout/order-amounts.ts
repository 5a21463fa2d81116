import { centsToDecimalString, type Cents } from '../gateway/money';
import type { FieldErrorCollector } from './errors';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import type { CheckoutOrder } from './types';

/**
 * Items, discounts and shipping must be whole cents and add up to the order total and to `amount`. No amount of an
 * order (a price, a line, a discount, the shipping) is above `maxTotalCents`: past a safe integer the sum would be
 * float arithmetic on money, could not be formatted (a 500), or could cancel out into a "valid" total.
 */
export function checkAmounts(
  order: CheckoutOrder,
  amount: unknown,
  errors: FieldErrorCollector,
  limits: Pick<ResolvedCheckoutOptions, 'maxItems' | 'maxTotalCents'>,
): Cents {
  const before = errors.count();
  // Bounded before anything else is looked at: an order of 10,000 lines is refused without walking it.
  if (Array.isArray(order.items) && order.items.length > limits.maxItems) {
    errors.add('order.items', `must have at most ${limits.maxItems} items (checkout.maxItems)`);
    return 0;
  }
  const most = `${centsToDecimalString(limits.maxTotalCents)} (checkout.maxTotalCents)`;
  if (Number.isSafeInteger(order.total) && order.total > limits.maxTotalCents) {
    errors.add('order.total', `must be at most ${most}`);
  }
  const cents = (field: string, value: unknown, required: boolean, bounded = true): value is Cents => {
    if (value === undefined && !required) return true;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      errors.add(field, 'must be a non-negative integer number of cents');
      return false;
    }
    if (bounded && (value as number) > limits.maxTotalCents) {
      errors.add(field, `must be at most ${most}`);
      return false;
    }
    return true;
  };
  if (!Array.isArray(order.items) || order.items.length === 0) {
    errors.add('order.items', 'must contain at least one item');
  }
  let gross = 0;
  let lineDiscounts = 0;
  (Array.isArray(order.items) ? order.items : []).forEach((item, i) => {
    const at = `order.items[${i}]`;
    if (!item || typeof item !== 'object') return errors.add(at, 'must be an item');
    if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) {
      errors.add(`${at}.quantity`, 'must be a positive integer');
    }
    const priced = cents(`${at}.unit_price`, item.unit_price, true);
    const discounted = cents(`${at}.discount_total`, item.discount_total, false);
    if (priced && Number.isSafeInteger(item.quantity) && item.quantity >= 1) {
      const line = item.unit_price * item.quantity;
      if (line > limits.maxTotalCents)
        return errors.add(`${at}.quantity`, `times unit_price must be at most ${most}`);
      if (discounted && (item.discount_total ?? 0) > line) {
        errors.add(`${at}.discount_total`, 'must not exceed the line total');
      }
      gross += line;
      lineDiscounts += discounted ? (item.discount_total ?? 0) : 0;
    }
  });
  const okShipping = cents('order.shipping_total', order.shipping_total, false);
  const okDiscount = cents('order.discount_total', order.discount_total, false);
  const okTotal = cents('order.total', order.total, true, false); // bounded above, with its own message
  if (okTotal && order.total === 0) errors.add('order.total', 'must be positive');
  if (okDiscount && (order.discount_total ?? 0) < lineDiscounts) {
    errors.add('order.discount_total', "must include the items' discount_total");
  }
  if (errors.count() > before || !okShipping || !okTotal) return 0;

  const shipping = order.shipping_total ?? 0;
  const discount = order.discount_total ?? 0;
  const sum = gross - discount + shipping;
  if (!Number.isSafeInteger(gross) || !Number.isSafeInteger(sum)) {
    // Only with options past any real order (maxItems × maxTotalCents over 2^53): still a 400, never a float sum.
    errors.add('order.items', `add up past ${Number.MAX_SAFE_INTEGER} cents`);
  } else if (sum !== order.total) {
    const f = centsToDecimalString;
    errors.add(
      'order.total',
      `does not add up: items ${f(gross)} - discounts ${f(discount)} + shipping ${f(shipping)} = ${f(sum)}, not ${f(order.total)}`,
    );
  } else if (amount !== order.total) {
    errors.add('amount', `must equal the order total (${centsToDecimalString(order.total)})`);
  }
  return order.total;
}
