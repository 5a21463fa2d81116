import type { CheckoutAddress, CheckoutOrder } from '../core/checkout.types';
import { isTimeZone, type TextRule } from '../domain/text-and-days';
import { isHttpUrl } from '../gateway/dto/validators';
import type { InvoiceAddress, PaymentMethod } from '../gateway/types';
import { int, MINUTE, resolveNumbers, type Numbers, type NumberOptions } from '../domain/option-fields';

/** Maps the shipping address to `client.address` (house number and district from the store's own fields); validated. */
export type AddressMapper = (address: CheckoutAddress, order: CheckoutOrder) => Partial<InvoiceAddress>;

/** A placeholder of `orderUrlTemplate` and `storeUrlTemplate`, filled in URL-encoded. */
export const URL_PLACEHOLDER = /\{(order_id|display_id|reference)\}/g;

/** `orderUrlTemplate` or `storeUrlTemplate` with its placeholders filled, URL-encoded. */
export function fillUrlTemplate(
  template: string,
  values: { order_id: string; display_id: string; reference: string },
): string {
  return template.replace(URL_PLACEHOLDER, (_, key: keyof typeof values) => encodeURIComponent(values[key]));
}

/** `dueDays` and `maxInstallments` are runtime settings too, bounded alike (`core/settings.schema.ts`). */
export const CHECKOUT = {
  /** Days from today (in `timeZone`) to the due date (`payment.due_at`). Default 3. */
  dueDays: int(0, 3, 90),
  /** Highest number of card installments offered. Default 12. */
  maxInstallments: int(1, 12, 12),
  /** How long a caller waits for another caller's creation of the same order's invoice. Default 30 000 ms. */
  creationWaitMs: int(1, 30_000),
  /** A creation claim older than this belongs to a crashed process; above the longest request. Default 120 000 ms. */
  staleCreationMs: int(1, 2 * MINUTE),
  /** An unknown creation not found by its referrer is looked up again after this long. Default 2000 ms. */
  unknownOutcomeRecheckMs: int(0, 2000),
  /** How long after its timeout a create request may still land; no new invoice until then. Default 60 000 ms. */
  lateCreationMarginMs: int(0, MINUTE),
  /** An outcome still undecided after this long raises `creation_unresolved`. Default 600 000 ms. */
  unresolvedAlertMs: int(0, 10 * MINUTE),
  /** Most items an order may have; more is refused before anything is sent. Default 500. */
  maxItems: int(1, 500),
  /** Highest order total in cents; more is refused before anything is sent. Default 1 000 000 000 (R$ 10 million). */
  maxTotalCents: int(1, 1_000_000_000),
} as const;

/** The `checkout` section of the module options. */
export interface CheckoutOptions extends NumberOptions<typeof CHECKOUT> {
  /** Methods the store offers. Default: all three. */
  methods?: PaymentMethod[];
  /** The store's IANA time zone, for due dates and card expiry. Default `America/Sao_Paulo`. */
  timeZone?: string;
  /** `payment.order_url`, with URL-encoded placeholders `{order_id}`, `{display_id}`, `{reference}`. */
  orderUrlTemplate?: string;
  /** `payment.store_url`, same placeholders. */
  storeUrlTemplate?: string;
  /** `ecommerce.store_id` and `ecommerce.checkout`: only for checkout integrations, sent only when set. */
  ecommerce?: { storeId: number; checkout: number };
  /** The module's public webhook URL, sent as `payment.webhook`. */
  publicWebhookUrl?: string;
  mapAddress?: AddressMapper;
  /** Most characters of each text sent; default the service's limits (docs/gateway-assumptions.md A17). */
  textLimits?: Partial<TextLimits>;
  /** Prefix of every invoice referrer (1 to 16 lowercase letters and digits), one per store (docs/refunds.md). */
  referrerNamespace?: string;
}

/** {@link CheckoutOptions} with the defaults applied and checked. */
export type ResolvedCheckoutOptions = ReturnType<typeof resolveCheckoutOptions>;

/** Every payment method, in the order the admin shows them (`checkout.methods`' default). */
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['pix', 'billet', 'card'];

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/**
 * Most characters of each text sent to the service (A17: the service's limits), counted after trimming in UTF-16 code
 * units; longer input is a `CheckoutValidationError` naming the field (docs/checkout.md, "Text the module accepts").
 */
export const DEFAULT_TEXT_LIMITS = {
  orderId: 128, // `payment.id`, and the `order_id` column
  reference: 100, // `payment.referrer` (`<namespace>:<reference>-<attempt>`) must fit the service's 128
  name: 200,
  email: 254,
  phone: 32, // as given, punctuation included
  document: 32, // as given, punctuation included
  address: 200, // each of street, number, district, city
  productId: 128,
  title: 250,
  imageUrl: 2048, // `item.thumbnail`
  holderName: 120,
  cardToken: 256,
};

export type TextLimits = Record<keyof typeof DEFAULT_TEXT_LIMITS, number>;

/** Each limit's bounds: the module's table columns cap `orderId` and `reference` at 128 characters. */
const TEXT_LIMITS = Object.fromEntries(
  Object.entries(DEFAULT_TEXT_LIMITS).map(([name, fallback]) => {
    const cap = name === 'orderId' || name === 'reference' ? 128 : 100_000;
    return [name, int(1, fallback, cap)];
  }),
) as Numbers<TextLimits>;

/** Applies the defaults; problems (named `checkout.textLimits.<name>`) go to `bad`. */
function resolveTextLimits(given: Partial<TextLimits> = {}, bad: (field: string, why: string) => void) {
  for (const name of Object.keys(given))
    if (!(name in DEFAULT_TEXT_LIMITS)) bad(`textLimits.${name}`, 'is not a text limit');
  return resolveNumbers('textLimits', TEXT_LIMITS, given, (name, why) => bad(`textLimits.${name}`, why));
}

/** The rule of one limited field, naming its option. */
export function textRule(limits: TextLimits, name: keyof TextLimits, required = false): TextRule {
  return { max: limits[name], required, option: `checkout.textLimits.${name}` };
}

/** Applies the defaults and refuses bad options at startup, naming each one at fault. */
export function resolveCheckoutOptions(options: CheckoutOptions = {}) {
  const problems: string[] = [];
  const bad = (field: string, why: string) => problems.push(`checkout.${field} ${why}`);
  const methods = options.methods ?? PAYMENT_METHODS;
  if (methods.length === 0 || methods.some((m) => !PAYMENT_METHODS.includes(m))) {
    bad('methods', `must be a non-empty list of ${PAYMENT_METHODS.join(', ')}`);
  }
  const numbers = resolveNumbers('checkout', CHECKOUT, options, bad);
  const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(timeZone)) bad('timeZone', 'is not an IANA time zone');
  for (const field of ['orderUrlTemplate', 'storeUrlTemplate', 'publicWebhookUrl'] as const) {
    const value = options[field];
    if (value !== undefined && !isHttpUrl(value.replace(URL_PLACEHOLDER, 'x'))) {
      bad(field, 'must be an absolute http(s) URL');
    }
  }
  if (options.ecommerce) {
    const { storeId, checkout } = options.ecommerce;
    if (!Number.isSafeInteger(storeId)) bad('ecommerce.storeId', 'must be an integer');
    if (!Number.isSafeInteger(checkout)) bad('ecommerce.checkout', 'must be an integer');
  }
  const textLimits = resolveTextLimits(options.textLimits, bad);
  // No `:`, which ends the namespace in a referrer.
  const namespace = options.referrerNamespace;
  if (namespace !== undefined && !(typeof namespace === 'string' && /^[a-z0-9]{1,16}$/.test(namespace))) {
    bad('referrerNamespace', 'must be 1 to 16 lowercase letters and digits');
  }
  if (problems.length) throw new Error(`Invalid InvoicePaymentsModule options: ${problems.join('; ')}`);
  return {
    ...numbers,
    methods: [...methods],
    timeZone,
    orderUrlTemplate: options.orderUrlTemplate,
    storeUrlTemplate: options.storeUrlTemplate,
    ecommerce: options.ecommerce,
    publicWebhookUrl: options.publicWebhookUrl,
    mapAddress: options.mapAddress,
    textLimits,
    referrerNamespace: options.referrerNamespace,
  };
}
