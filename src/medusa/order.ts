import { inspect } from 'node:util';
import type { InvoiceCreationService } from '../checkout/invoice-creation.service';
import { mapAddress } from '../checkout/address-mapping';
import { CheckoutValidationError, FieldErrorCollector } from '../core/invoice.errors';
import type {
  CheckoutAddress,
  CheckoutCard,
  CheckoutOrder,
  InitiatePaymentData,
} from '../core/checkout.types';
import { readText } from '../domain/text-and-days';
import { asRecord, sentText } from '../gateway/json';
import { majorUnitsToCents, MoneyFormatError, type Cents } from '../gateway/money';
import type { PaymentMethod } from '../gateway/types';
import { DEFAULT_TEXT_LIMITS, type ResolvedCheckoutOptions } from '../options/checkout.options';
import type {
  MedusaAddress,
  MedusaBigNumberInput,
  MedusaCheckoutCart,
  MedusaPaymentContext,
  MedusaProviderInput,
  MedusaSessionChoice,
} from './types';

/**
 * Medusa's amount (major units, `BigNumberInput`) to integer cents, exactly: a big number is read through its full
 * decimal text (`raw.value`, `toFixed()`), never through float arithmetic; a fraction of a cent is refused.
 */
export function medusaAmountToCents(
  amount: MedusaBigNumberInput | null | undefined,
  field = 'amount',
): Cents {
  const text = decimalTextOf(amount);
  if (text === null) throw new MoneyFormatError(`${field}: not an amount: ${inspect(amount)}`, amount);
  return majorUnitsToCents(text);
}

// Medusa's BigNumber: the raw value keeps every digit; `numeric` is a float and only the last resort.
function decimalTextOf(amount: unknown): string | null {
  if (typeof amount !== 'object' || amount === null) return sentText(amount);
  const a = amount as {
    raw?: { value?: unknown };
    bigNumber?: { toFixed?: () => string };
    value?: unknown;
    toFixed?: () => string;
    numeric?: unknown;
  };
  const texts = [a.raw?.value, a.bigNumber?.toFixed?.(), a.value, a.toFixed?.(), a.numeric].map(sentText);
  return texts.find((text) => text !== null) ?? null;
}

/** Keys of Medusa's `customer.metadata` read for the CPF/CNPJ when the options name none. */
export const DEFAULT_DOCUMENT_KEYS = ['cpf', 'cnpj', 'document', 'tax_id'];

/** What the order is built from: values Medusa computed on the server, and the storefront's choice (`data`). */
export interface MedusaOrderSource {
  /** Medusa's payment session id: the order key of the invoice. */
  sessionId: string;
  /** The payment collection's amount. */
  amountCents: Cents;
  currencyCode: string;
  context?: MedusaPaymentContext;
  data?: Record<string, unknown>;
  documentKeys?: string[];
  /** Method when the storefront chose none. */
  defaultMethod: PaymentMethod;
  /** Most characters of the storefront's `data.first_name` and `data.last_name` (`checkout.textLimits.name`). */
  nameMax?: number;
  /** Most characters of the storefront's `data.document` (`checkout.textLimits.document`). */
  documentMax?: number;
}

/**
 * The checkout's order for a Medusa payment session, built only from what Medusa computed: the payment collection's
 * amount as one line, Medusa's customer (a signed-in shopper) or the cart's e-mail and billing name (a guest, read by
 * the plugin), and the CPF/CNPJ (docs/medusa.md, "Checkout").
 */
export function buildCheckoutData(source: MedusaOrderSource): InitiatePaymentData {
  const choice = (source.data ?? {}) as MedusaSessionChoice & Record<string, unknown>;
  const customer = source.context?.customer;
  const cart = cartOf(choice.cart);
  const address = customer?.billing_address ? addressOf(customer.billing_address) : null;
  const given = storefrontChoice(choice, source);
  const order: CheckoutOrder = {
    id: source.sessionId,
    reference: source.sessionId,
    currency_code: source.currencyCode,
    total: source.amountCents,
    items: [
      {
        id: source.sessionId,
        title: `Order ${source.sessionId}`,
        quantity: 1,
        unit_price: source.amountCents,
        // Medusa does not tell the provider what was bought: the address is sent when the customer has one.
        requires_shipping: false,
      },
    ],
    customer: {
      name: payerName(customer, given.name, cart) ?? undefined,
      email: customer?.email || cart?.email || undefined,
      phone: customer?.phone || address?.phone || cartPhone(cart) || undefined,
      document:
        (source.documentKeys ?? DEFAULT_DOCUMENT_KEYS)
          .map((key) => text(customer?.metadata?.[key]))
          .find((value) => value !== null) ?? given.document,
    },
    shipping_address: address?.address ?? null,
  };
  // An unknown method is refused by the mapping, naming `method`.
  const method = (choice.method ?? source.defaultMethod) as PaymentMethod;
  const data: InitiatePaymentData = { order, method };
  const card = choice.card as Partial<CheckoutCard> | null | undefined;
  if (typeof card === 'object' && card !== null && card.token !== undefined) {
    const { token, expiry, holder_name } = card as CheckoutCard;
    data.card = { token, expiry, holder_name };
  }
  // Passed as given, whatever its type: the mapping refuses anything but a whole number in range (a 400 naming
  // `installments`), so a "3" is never charged in one installment.
  if (choice.installments !== undefined && choice.installments !== null)
    data.installments = choice.installments;
  return data;
}

/**
 * The checkout's request for a Medusa session: Medusa's amount in cents and the order built on the server, with the
 * checkout options in force it was built with (the checkout reads them once).
 */
export async function checkoutRequestOf(
  checkout: InvoiceCreationService,
  input: MedusaProviderInput,
  sessionId: string,
  documentKeys: string[] | undefined,
  method?: PaymentMethod,
) {
  const amount = sessionAmountOf(input);
  const currency_code = input.currency_code as string;
  const options = await checkout.current();
  const data = buildCheckoutData({
    sessionId,
    amountCents: amount,
    currencyCode: currency_code,
    context: input.context,
    data: input.data,
    documentKeys,
    defaultMethod: method ?? options.methods[0],
    nameMax: options.textLimits.name,
    documentMax: options.textLimits.document,
  });
  // Medusa's invoices are digital (the provider is not told what was bought), so the customer's saved address is
  // optional. Medusa keeps addresses as free text (no bairro, a province in words) that often do not fit the
  // service's: one that does not is left out, rather than refusing a payment for a field the shopper cannot see.
  const address = data.order.shipping_address;
  if (address && !fitsTheService(address, data.order, options)) data.order.shipping_address = null;
  return { amount, currency_code, data, options };
}

/** The payment collection's amount; a fraction of a cent is the request's fault (a 400 naming `amount`). */
function sessionAmountOf(input: MedusaProviderInput): Cents {
  try {
    return medusaAmountToCents(input.amount);
  } catch (err) {
    if (err instanceof MoneyFormatError) {
      throw new CheckoutValidationError({ amount: ['must be an amount in whole cents'] });
    }
    throw err;
  }
}

/** Whether the checkout's own address check takes the address as it is. */
function fitsTheService(
  address: CheckoutAddress,
  order: CheckoutOrder,
  options: ResolvedCheckoutOptions,
): boolean {
  const problems = new FieldErrorCollector();
  mapAddress(address, order, options, problems);
  return !problems.has();
}

/**
 * The payer's name: Medusa's customer (its name, else its company's), else the name the storefront passed in `data`,
 * else the cart's billing address, else its shipping address (a guest's name is only there), else the customer's saved
 * billing address.
 */
function payerName(
  customer: MedusaPaymentContext['customer'],
  given: string | null,
  cart: MedusaCheckoutCart | null,
): string | null {
  const billing = customer?.billing_address;
  return (
    fullName(customer?.first_name, customer?.last_name) ||
    text(customer?.company_name) ||
    given ||
    fullName(cart?.billing_address?.first_name, cart?.billing_address?.last_name) ||
    fullName(cart?.shipping_address?.first_name, cart?.shipping_address?.last_name) ||
    fullName(billing?.first_name, billing?.last_name) ||
    null
  );
}

/**
 * The storefront's `data.first_name`, `data.last_name` and `data.document`, checked as any input (a 400 naming the
 * field), also when Medusa's customer has its own: a wrong value is never silently dropped for another.
 */
function storefrontChoice(
  choice: Record<string, unknown>,
  { nameMax = DEFAULT_TEXT_LIMITS.name, documentMax = DEFAULT_TEXT_LIMITS.document }: MedusaOrderSource,
): { name: string | null; document: string | undefined } {
  const errors = new FieldErrorCollector();
  const rule = { max: nameMax, option: 'checkout.textLimits.name' };
  const first = readText(errors, 'data.first_name', choice.first_name, rule);
  const last = readText(errors, 'data.last_name', choice.last_name, rule);
  const documentRule = { max: documentMax, option: 'checkout.textLimits.document' };
  const document = readText(errors, 'data.document', choice.document, documentRule);
  errors.throwIfAny();
  return { name: fullName(first, last) || null, document };
}

function fullName(first: unknown, last: unknown): string {
  return [text(first), text(last)].filter((p) => p !== null).join(' ');
}

/** The plugin's reading of the cart (`data.cart`), when it is one; anything else counts as none. */
function cartOf(value: unknown): MedusaCheckoutCart | null {
  const cart = asRecord(value) as Partial<MedusaCheckoutCart> | null;
  if (!cart) return null;
  return {
    id: String(cart.id ?? ''),
    email: text(cart.email),
    billing_address: asRecord(cart.billing_address) as MedusaAddress | null,
    shipping_address: asRecord(cart.shipping_address) as MedusaAddress | null,
  };
}

function cartPhone(cart: MedusaCheckoutCart | null): string | null {
  return text(cart?.billing_address?.phone) ?? text(cart?.shipping_address?.phone);
}

/** Medusa's address; `number` and `district` from its `metadata` when the store keeps them there. */
function addressOf(a: MedusaAddress): { address: CheckoutAddress; phone: string | null } | null {
  if (!a.address_1 && !a.postal_code) return null;
  const meta = a.metadata ?? {};
  return {
    address: {
      address_1: a.address_1 ?? undefined,
      address_2: a.address_2 ?? null,
      number: text(meta.number) ?? undefined,
      district: text(meta.district) ?? text(meta.neighborhood) ?? undefined,
      city: a.city ?? undefined,
      province: a.province ?? undefined,
      postal_code: a.postal_code ?? undefined,
      country_code: a.country_code ?? undefined,
    },
    phone: a.phone ?? null,
  };
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}
