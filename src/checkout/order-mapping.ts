import { textProblem, type TextRule } from '../core/text-bounds';
import { isHttpUrl } from '../gateway/dto/validators';
import type { Cents } from '../gateway/money';
import type { CreateInvoiceParams, InvoiceAddress, PaymentMethod } from '../gateway/types';
import { mapAddress } from './address-mapping';
import { addDays, isCardExpiryCurrent, todayIn } from './calendar';
import { mapCustomer, nonEmpty } from './customer-mapping';
import type { ResolvedCheckoutOptions } from '../options/checkout.options';
import { CheckoutValidationError, FieldErrorCollector } from './errors';
import { textRule, type TextLimits } from './text-limits';
import { checkAmounts } from './order-amounts';
import { recognisedOrder, type RecognisedOrder } from './order-identity';
import type { CheckoutOrder, InitiatePaymentData } from './types';

/** What the checkout asks for: Medusa's `initiatePayment` input. */
export interface CheckoutRequest {
  /** Cents; must equal `order.total`. */
  amount: Cents;
  currency_code: string;
  data: InitiatePaymentData;
}

/** An order mapped to the service's create-invoice parameters. */
export interface MappedInvoice {
  /** For attempt 1; {@link withReferrer} sets the attempt's own. */
  params: CreateInvoiceParams;
  /** The order's reference; the referrer of attempt n is `<reference>-<n>`. */
  reference: string;
  totalCents: Cents;
  method: PaymentMethod;
  /** Order number and customer as people know them, kept on the record for the admin page. */
  shown: RecognisedOrder;
}

/**
 * `payment.referrer` of one attempt: unique per attempt, so an unknown outcome can be looked up, and prefixed with
 * the installation's namespace (`<namespace>:<reference>-<attempt>`), so another store on the same service account
 * never uses it. Without a namespace: `<reference>-<attempt>` (referrers made before namespaces).
 */
export function invoiceReferrer(reference: string, attempt: number, namespace = ''): string {
  return namespace ? `${namespace}:${reference}-${attempt}` : `${reference}-${attempt}`;
}

/** Whether a referrer carries this installation's namespace. */
export function hasNamespace(referrer: string | null | undefined, namespace: string): boolean {
  return !!namespace && typeof referrer === 'string' && referrer.startsWith(`${namespace}:`);
}

/** The same parameters for another attempt. */
export function withReferrer(params: CreateInvoiceParams, referrer: string): CreateInvoiceParams {
  return { ...params, payment: { ...params.payment, referrer } };
}

/**
 * Validates a checkout request and maps it to an invoice (spec §4.2). Every problem is collected and thrown at
 * once as a `CheckoutValidationError` naming the fields; nothing here talks to the service or the database.
 */
export function mapOrderToInvoice(request: CheckoutRequest, options: ResolvedCheckoutOptions): MappedInvoice {
  const errors = new FieldErrorCollector();
  const data = request?.data;
  const order = data?.order;
  if (!order || typeof order !== 'object') throw new CheckoutValidationError({ order: ['is required'] });
  const method = data.method;
  if (!options.methods.includes(method)) errors.add('method', `must be one of ${options.methods.join(', ')}`);
  const limits = options.textLimits;
  checkId(errors, 'order.id', order.id, textRule(limits, 'orderId', true));
  for (const [field, code] of [
    ['currency_code', request.currency_code],
    ['order.currency_code', order.currency_code],
  ] as const) {
    if (typeof code !== 'string' || code.toUpperCase() !== 'BRL') errors.add(field, 'must be BRL');
  }

  const totalCents = checkAmounts(order, request.amount, errors, options);
  checkItemTexts(order, options, errors);
  const physical = Array.isArray(order.items) && order.items.some((i) => i?.requires_shipping !== false);

  let address: InvoiceAddress | undefined;
  if (order.shipping_address) {
    address = mapAddress(order.shipping_address, order, options.mapAddress, errors, limits);
  } else if (physical) {
    errors.add('order.shipping_address', 'is required when an item requires shipping');
  }
  // A4: international when the address is outside Brazil; a customer without an address is domestic.
  const international = address !== undefined && address.country !== 'BRA';
  const client = mapCustomer(order, international, errors, limits);
  if (address) client.address = address;

  const today = todayIn(options.timeZone, new Date());
  const { installments, card } = mapCard(data, method, options, today, errors);

  const reference = referenceOf(order, limits, errors);
  errors.throwIfAny();

  const lineDiscounts = order.items.reduce((sum, item) => sum + (item.discount_total ?? 0), 0);
  const params: CreateInvoiceParams = {
    client,
    ...(options.ecommerce ? { ecommerce: { ...options.ecommerce } } : {}),
    payment: {
      method,
      physical,
      id: order.id,
      referrer: invoiceReferrer(reference, 1),
      dueAt: addDays(today, options.dueDays),
      installments,
      ...urls(order, reference, options),
      ...(options.publicWebhookUrl ? { webhook: options.publicWebhookUrl } : {}),
      discountCents: (order.discount_total ?? 0) - lineDiscounts,
      products: order.items.map((item) => ({
        id: item.id,
        ...(nonEmpty(item.thumbnail) ? { image: item.thumbnail } : {}),
        title: item.title.trim(),
        quantity: item.quantity,
        discountCents: item.discount_total ?? 0,
        unitAmountCents: item.unit_price,
      })),
      ...(card ? { card } : {}),
    },
    shippingCents: order.shipping_total ?? 0,
  };
  return { params, reference, totalCents, method, shown: recognisedOrder(order, client) };
}

/**
 * An id the service and the database key on is used as given, never trimmed: it must already be clean (A17), so
 * that the host finds its order by the same value.
 */
function checkId(errors: FieldErrorCollector, field: string, value: unknown, rule: TextRule): void {
  const problem =
    typeof value === 'string' && value.trim() !== value && value.trim() !== ''
      ? 'must not start or end with spaces'
      : textProblem(value, rule);
  if (problem) errors.add(field, problem);
}

/**
 * The order's reference: `reference`, else `display_id`, else `id`; named by the field it came from. `display_id`
 * is checked whenever it is given, reference or not: the record keeps it as the order's number.
 */
function referenceOf(order: CheckoutOrder, limits: TextLimits, errors: FieldErrorCollector): string {
  const rule = textRule(limits, 'reference', true);
  const display = order.display_id;
  if (display !== undefined && display !== null) {
    if (typeof display !== 'number') checkId(errors, 'order.display_id', display, rule);
    else if (!Number.isSafeInteger(display) || display < 0) {
      errors.add('order.display_id', 'must be a string or a non-negative integer');
    }
  }
  if (order.reference !== undefined && order.reference !== null) {
    checkId(errors, 'order.reference', order.reference, rule);
    return order.reference;
  }
  if (display !== undefined && display !== null) return String(display);
  if (!errors.has('order.id')) checkId(errors, 'order.id', order.id, rule);
  return order.id;
}

/** Each item's id, title and thumbnail: strings within their limits (A17), free of control characters. */
function checkItemTexts(
  order: CheckoutOrder,
  { textLimits: limits, maxItems }: ResolvedCheckoutOptions,
  errors: FieldErrorCollector,
): void {
  if (!Array.isArray(order.items) || order.items.length > maxItems) return; // refused unwalked (checkAmounts)
  order.items.forEach((item, i) => {
    if (!item || typeof item !== 'object') return;
    const at = `order.items[${i}]`;
    const check = (field: string, value: unknown, rule: TextRule) => {
      const problem = textProblem(value, rule);
      if (problem) errors.add(`${at}.${field}`, problem);
    };
    check('id', item.id, textRule(limits, 'productId', true));
    check('title', item.title, textRule(limits, 'title', true));
    check('thumbnail', item.thumbnail, textRule(limits, 'imageUrl'));
    // The service takes only an absolute http(s) image URL: anything else would be refused after the claim.
    if (nonEmpty(item.thumbnail) && !errors.has(`${at}.thumbnail`) && !isHttpUrl(item.thumbnail.trim())) {
      errors.add(`${at}.thumbnail`, 'must be an absolute http(s) URL');
    }
  });
}

function mapCard(
  data: InitiatePaymentData,
  method: PaymentMethod,
  { maxInstallments, textLimits }: Pick<ResolvedCheckoutOptions, 'maxInstallments' | 'textLimits'>,
  today: string,
  errors: FieldErrorCollector,
): { installments: number; card?: NonNullable<CreateInvoiceParams['payment']['card']> } {
  const installments = data.installments ?? 1;
  if (method !== 'card') {
    if (installments !== 1) errors.add('installments', 'must be 1 for PIX and bank slip');
    return { installments: 1 };
  }
  if (!Number.isSafeInteger(installments) || installments < 1 || installments > maxInstallments) {
    errors.add('installments', `must be an integer from 1 to ${maxInstallments}`);
  }
  const card = data.card;
  if (!card || typeof card !== 'object') {
    errors.add('card', 'is required for card payments');
    return { installments };
  }
  const token = textProblem(card.token, textRule(textLimits, 'cardToken', true));
  if (token) errors.add('card.token', token);
  const holder = textProblem(card.holder_name, textRule(textLimits, 'holderName', true));
  if (holder) errors.add('card.holder_name', holder);
  if (typeof card.expiry !== 'string' || !/^(0[1-9]|1[0-2])\/\d{2}$/.test(card.expiry)) {
    errors.add('card.expiry', 'must be MM/YY');
  } else if (!isCardExpiryCurrent(card.expiry, today)) {
    errors.add('card.expiry', 'is in the past: the card has expired');
  }
  return {
    installments,
    card: { token: card.token, valid: card.expiry, holderName: holder ? '' : card.holder_name.trim() },
  };
}

function urls(order: CheckoutOrder, reference: string, options: ResolvedCheckoutOptions) {
  const fill = (template: string) =>
    template.replace(/\{(order_id|display_id|reference)\}/g, (_, key: string) =>
      encodeURIComponent(
        key === 'order_id' ? order.id : key === 'display_id' ? String(order.display_id ?? '') : reference,
      ),
    );
  return {
    ...(options.orderUrlTemplate ? { orderUrl: fill(options.orderUrlTemplate) } : {}),
    ...(options.storeUrlTemplate ? { storeUrl: fill(options.storeUrlTemplate) } : {}),
  };
}
