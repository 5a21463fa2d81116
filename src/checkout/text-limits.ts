import type { TextRule } from '../core/text-bounds';

/**
 * Most characters of each text the checkout sends to the service (docs/gateway-assumptions.md, A17: the service's
 * limits, which the sandbox enforces). Longer input is refused with a `CheckoutValidationError` naming the field,
 * before anything is sent or stored. Counted after trimming, in UTF-16 code units.
 */
export interface TextLimits {
  /** `order.id` → `payment.id`; at most 128 (the service's limit and the `order_id` column). */
  orderId: number;
  /**
   * The order reference; `payment.referrer` is `<namespace>:<reference>-<attempt>` (namespace up to 16) and must fit
   * the service's 128.
   */
  reference: number;
  /** `client.name` (`customer.name`, or first and last name joined). */
  name: number;
  /** `client.email`. */
  email: number;
  /** `customer.phone` as given (punctuation included). */
  phone: number;
  /** `customer.document` as given (punctuation included). */
  document: number;
  /** Each field of `client.address`: street, number, district, city. */
  address: number;
  /** `payment.products[].id`. */
  productId: number;
  /** `payment.products[].title`. */
  title: number;
  /** `payment.products[].image` (`item.thumbnail`, a URL). */
  imageUrl: number;
  /** `payment.card.holder.name`. */
  holderName: number;
  /** `payment.card.token`. */
  cardToken: number;
}

/** The service's limits (A17). */
export const DEFAULT_TEXT_LIMITS: Readonly<TextLimits> = {
  orderId: 128,
  reference: 100,
  name: 200,
  email: 254,
  phone: 32,
  document: 32,
  address: 200,
  productId: 128,
  title: 250,
  imageUrl: 2048,
  holderName: 120,
  cardToken: 256,
};

/** Limits that columns of the module's tables cap: a larger value could not be stored. */
const STORAGE_CAPS: Partial<Record<keyof TextLimits, number>> = { orderId: 128, reference: 128 };

/** Applies the defaults; problems (named `checkout.textLimits.<name>`) go to `bad`. */
export function resolveTextLimits(
  given: Partial<TextLimits> | undefined,
  bad: (field: string, why: string) => void,
): TextLimits {
  const limits = { ...DEFAULT_TEXT_LIMITS };
  for (const [name, value] of Object.entries(given ?? {}) as Array<[keyof TextLimits, unknown]>) {
    if (value === undefined) continue;
    const cap = STORAGE_CAPS[name] ?? 100_000;
    if (!(name in DEFAULT_TEXT_LIMITS)) bad(`textLimits.${name}`, 'is not a text limit');
    else if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > cap) {
      bad(`textLimits.${name}`, `must be an integer from 1 to ${cap}`);
    } else limits[name] = value as number;
  }
  return limits;
}

/** The rule of one limited field, naming its option. */
export function textRule(limits: TextLimits, name: keyof TextLimits, required = false): TextRule {
  return { max: limits[name], required, option: `checkout.textLimits.${name}` };
}
