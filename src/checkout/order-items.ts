import { centsToDecimalString, type Cents } from '../gateway/money';
import { isCents, obeys } from '../gateway/dto/validators';
import { PRODUCT } from '../gateway/dto/inputs';
import { readText } from '../domain/text-bounds';
import { textRule, type ResolvedCheckoutOptions } from '../options/checkout.options';
import type { FieldErrorCollector } from '../core/invoice.errors';
import type { CheckoutOrder } from '../core/checkout.types';

/** The items' texts, and whole cents adding up to the total, each at most `maxTotalCents` (no float sums). */
export function checkItems(
  order: CheckoutOrder,
  amount: unknown,
  errors: FieldErrorCollector,
  { maxItems, maxTotalCents, textLimits }: ResolvedCheckoutOptions,
): Cents {
  const items = Array.isArray(order.items) ? order.items : [];
  // An order of 10,000 lines is refused without walking it.
  if (items.length > maxItems) {
    errors.add('order.items', `must have at most ${maxItems} items (checkout.maxItems)`);
    return 0;
  }
  let adds = true; // a text's problem does not stop the sum; an amount's does
  const fail = (field: string, problem: string): false => {
    errors.add(field, problem);
    return (adds = false);
  };
  const most = `at most ${centsToDecimalString(maxTotalCents)} (checkout.maxTotalCents)`;
  const cents = (field: string, value: unknown, required = false): value is Cents | undefined => {
    if (value === undefined && !required) return true;
    if (!isCents(value)) return fail(field, 'must be a non-negative integer number of cents');
    return (value as number) <= maxTotalCents || fail(field, `must be ${most}`);
  };
  if (items.length === 0) fail('order.items', 'must contain at least one item');
  let gross = 0;
  let lineDiscounts = 0;
  items.forEach((item, i) => {
    const at = `order.items[${i}]`;
    if (!item || typeof item !== 'object') return fail(at, 'must be an item');
    readText(errors, `${at}.id`, item.id, textRule(textLimits, 'productId', true));
    readText(errors, `${at}.title`, item.title, textRule(textLimits, 'title', true));
    const url = readText(errors, `${at}.thumbnail`, item.thumbnail, textRule(textLimits, 'imageUrl'));
    if (url && !obeys(PRODUCT.image, url)) errors.add(`${at}.thumbnail`, 'must be an absolute http(s) URL');
    const counted =
      obeys(PRODUCT.quantity, item.quantity) || fail(`${at}.quantity`, 'must be a positive integer');
    const priced = cents(`${at}.unit_price`, item.unit_price, true);
    const discount = cents(`${at}.discount_total`, item.discount_total) ? (item.discount_total ?? 0) : 0;
    if (!priced || !counted) return;
    const line = item.unit_price * item.quantity;
    if (line > maxTotalCents) return fail(`${at}.quantity`, `times unit_price must be ${most}`);
    if (discount > line) fail(`${at}.discount_total`, 'must not exceed the line total');
    gross += line;
    lineDiscounts += discount;
  });
  cents('order.shipping_total', order.shipping_total);
  if (cents('order.discount_total', order.discount_total) && (order.discount_total ?? 0) < lineDiscounts) {
    fail('order.discount_total', "must include the items' discount_total");
  }
  if (cents('order.total', order.total, true) && order.total === 0) fail('order.total', 'must be positive');
  if (!adds) return 0;
  const shipping = order.shipping_total ?? 0;
  const discount = order.discount_total ?? 0;
  const sum = gross - discount + shipping;
  const f = centsToDecimalString;
  if (!Number.isSafeInteger(gross) || !Number.isSafeInteger(sum)) {
    // Only with options past any real order (maxItems × maxTotalCents over 2^53): still a 400, never a float sum.
    errors.add('order.items', `add up past ${Number.MAX_SAFE_INTEGER} cents`);
  } else if (sum !== order.total) {
    const terms = `items ${f(gross)} - discounts ${f(discount)} + shipping ${f(shipping)} = ${f(sum)}`;
    errors.add('order.total', `does not add up: ${terms}, not ${f(order.total)}`);
  } else if (amount !== order.total) {
    errors.add('amount', `must equal the order total (${f(order.total)})`);
  }
  return order.total;
}
