import type { CheckoutOptions, ResolvedCheckoutOptions } from '../checkout/checkout.options';
import { isReferrerNamespace } from '../checkout/checkout.options';
import { resolveTextLimits } from '../checkout/text-limits';
import type { StatusDispatchSettings } from '../core/status-dispatcher.service';
import { isHttpUrl } from '../gateway/dto/validators';
import type { PaymentMethod } from '../gateway/types';
import type { OpenReconciliationOptions, ResolvedOpenReconciliationOptions } from '../reconciliation/types';
import type { RefundsOptions, ResolvedRefundsOptions } from '../refunds/refund.options';
import { DEFAULT_SHIPMENT_EVENT } from '../shipping/constants';
import { defaultShipmentMapper } from '../shipping/shipping-options';
import type { BackoffOptions, ResolvedShippingOptions, ShippingModuleOptions } from '../shipping/types';
import type {
  ReconciliationOptions,
  ResolvedWebhooksOptions,
  WebhookInboxOptions,
  WebhooksOptions,
  WebhooksTuning,
} from '../webhooks/types';
import type { StatusDispatchOptions } from './options';
import { int, numberProblem, resolveNumbers, type NumberField } from './fields';

/*
 * The defaults and bounds of every numeric option, one table per section (each checked by the compiler against the
 * section's declaration), and the resolvers that walk them at startup, a bad value refused naming the option.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Numbers<T> = Readonly<{ [K in keyof T as Required<T>[K] extends number ? K : never]-?: NumberField }>;

const NOTIFICATIONS = {
  pollIntervalMs: int(0, 5000),
  retryBaseDelayMs: int(1, 1000),
  retryMaxDelayMs: int(1, 5 * MINUTE),
  leaseMs: int(1, MINUTE),
} as const satisfies Numbers<StatusDispatchOptions>;

const WEBHOOKS = {
  bodyLimitBytes: int(1, 256 * 1024),
  lookupWindowMs: int(1, 1000),
  lookupsPerSecond: int(1, 300),
  maxJsonDepth: int(1, 64),
} as const satisfies Numbers<WebhooksOptions & WebhooksTuning>;

const WEBHOOK_INBOX = {
  pollIntervalMs: int(0, 1000),
  retryBaseDelayMs: int(1, 1000),
  retryMaxDelayMs: int(1, 5 * MINUTE),
  unknownInvoiceWindowMs: int(1, HOUR),
  unknownLookupsPerWindow: int(1, 60),
  unknownLookupWindowMs: int(1, MINUTE),
  retentionMs: int(1, 30 * DAY),
  maxAttempts: int(1, 20),
  leaseMs: int(1, MINUTE),
  batchSize: int(1, 50),
} as const satisfies Numbers<WebhookInboxOptions>;

/** `pageSize`: at most 100 (spec §4.1). */
const WEBHOOK_SWEEP = {
  intervalMs: int(0, 0),
  lookbackDays: int(1, 30),
  pageSize: int(1, 100, 100),
} as const satisfies Numbers<ReconciliationOptions>;

const RECONCILIATION = {
  intervalMs: int(0, 10_000),
  batchSize: int(1, 50),
  maxCallsPerMinute: int(1, 60),
  leaseMs: int(1000, MINUTE),
  hourlyUntilMs: int(0, DAY),
  dueDateMarginMs: int(0, 3 * DAY),
  minimumWindowMs: int(0, 30 * DAY),
  catchUpOnStartMs: int(0, 3 * DAY),
} as const satisfies Numbers<OpenReconciliationOptions>;

const RECONCILIATION_STEPS_MS = [MINUTE, 5 * MINUTE, 15 * MINUTE, HOUR];

const REFUNDS = {
  recheckMs: int(0, 2000),
  maxRecheckMs: int(0, 5 * MINUTE),
  lateMarginMs: int(0, 5000),
  unresolvedAlertMs: int(0, 15 * MINUTE),
  repeatWindowMs: int(0, 10 * MINUTE),
  pollIntervalMs: int(0, 5000),
} as const satisfies Numbers<RefundsOptions>;

const SHIPPING = {
  pollIntervalMs: int(1, 5000),
  batchSize: int(1, 10),
  leaseMs: int(1, MINUTE),
  maxAttempts: int(1, 20),
  retentionMs: int(1, 30 * DAY),
} as const satisfies Numbers<ShippingModuleOptions>;

const SHIPPING_BACKOFF = {
  initialDelayMs: int(1, 10_000),
  maxDelayMs: int(1, 30 * MINUTE),
  factor: { min: 1, default: 2, fraction: true },
  jitter: { min: 0, max: 1, default: 0.5, fraction: true },
} as const satisfies Numbers<BackoffOptions>;

/** Every payment method, in the order the admin shows them (`checkout.methods`' default). */
export const PAYMENT_METHODS: readonly PaymentMethod[] = ['pix', 'billet', 'card'];

/** `checkout.timeZone`'s default. */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** `dueDays` and `maxInstallments` are runtime settings too, bounded alike (`core/settings.schema.ts`). */
export const CHECKOUT = {
  dueDays: int(0, 3, 90),
  maxInstallments: int(1, 12, 12),
  creationWaitMs: int(1, 30_000),
  staleCreationMs: int(1, 2 * MINUTE),
  unknownOutcomeRecheckMs: int(0, 2000),
  lateCreationMarginMs: int(0, MINUTE),
  unresolvedAlertMs: int(0, 10 * MINUTE),
  maxItems: int(1, 500),
  maxTotalCents: int(1, 1_000_000_000),
} as const satisfies Numbers<CheckoutOptions>;

/** `notifications` with its defaults; `pollOnStart` is not an option: the module sets it from `workers`. */
export function resolveNotificationsOptions(
  options: StatusDispatchSettings = {},
): Required<StatusDispatchSettings> {
  return {
    ...resolveNumbers('notifications', NOTIFICATIONS, options),
    pollOnStart: options.pollOnStart ?? true,
  };
}

/** Where deliveries are received (`webhooks.path`). */
const DEFAULT_WEBHOOK_PATH = 'webhooks/invoice-payments';

export function resolveWebhooksOptions(
  options: WebhooksOptions & WebhooksTuning = {},
): ResolvedWebhooksOptions {
  const path = (options.path ?? DEFAULT_WEBHOOK_PATH).replace(/^\/+|\/+$/g, '');
  if (!path || /[?#\s]/.test(path)) throw new Error('webhooks.path must be a non-empty route path');
  if (options.merchantToken !== undefined && typeof options.merchantToken !== 'string') {
    throw new Error('webhooks.merchantToken must be a string');
  }
  return {
    ...resolveNumbers('webhooks', WEBHOOKS, options),
    path,
    merchantToken: options.merchantToken ? options.merchantToken : null,
    allowEmptyMerchantPart: options.allowEmptyMerchantPart ?? true,
    inbox: resolveNumbers('webhooks.inbox', WEBHOOK_INBOX, options.inbox),
    sweep: resolveNumbers('webhooks.sweep', WEBHOOK_SWEEP, options.sweep),
  };
}

export function resolveReconciliationOptions(
  options: OpenReconciliationOptions = {},
): ResolvedOpenReconciliationOptions {
  const steps = options.stepsMs ?? RECONCILIATION_STEPS_MS;
  if (!Array.isArray(steps) || steps.some((s) => !Number.isSafeInteger(s) || s <= 0)) {
    throw new Error('reconciliation.stepsMs must be a list of positive integers (ms)');
  }
  const numbers = resolveNumbers('reconciliation', RECONCILIATION, options);
  return { ...numbers, stepsMs: [...steps].sort((a, b) => a - b) };
}

/** The reconciliation's defaults. */
export const DEFAULT_RECONCILIATION = resolveReconciliationOptions();

/** `refunds` with its defaults; the settlement worker starts with the module's `workers`. */
export function resolveRefundsOptions(options: RefundsOptions = {}, workers = true): ResolvedRefundsOptions {
  return { ...resolveNumbers('refunds', REFUNDS, options), autoStartWorker: workers };
}

export function resolveShippingOptions(options: ShippingModuleOptions = {}): ResolvedShippingOptions {
  const event = options.shipmentEvent ?? DEFAULT_SHIPMENT_EVENT;
  if (event !== false && (typeof event !== 'string' || event.trim() === '')) {
    throw new Error('shipping.shipmentEvent must be a non-empty event name or false');
  }
  const backoff = resolveNumbers('shipping.backoff', SHIPPING_BACKOFF, options.backoff);
  if (backoff.maxDelayMs < backoff.initialDelayMs) {
    throw new Error('shipping.backoff.maxDelayMs must not be below shipping.backoff.initialDelayMs');
  }
  return {
    ...resolveNumbers('shipping', SHIPPING, options),
    shipmentEvent: event,
    mapShipmentEvent: options.mapShipmentEvent ?? defaultShipmentMapper,
    autoStartWorker: options.autoStartWorker ?? true,
    backoff,
  };
}

/** Applies the defaults and refuses bad options at startup, naming each one at fault. */
export function resolveCheckoutOptions(options: CheckoutOptions = {}): ResolvedCheckoutOptions {
  const problems: string[] = [];
  const bad = (field: string, why: string) => problems.push(`checkout.${field} ${why}`);
  const methods = options.methods ?? PAYMENT_METHODS;
  if (methods.length === 0 || methods.some((m) => !PAYMENT_METHODS.includes(m))) {
    bad('methods', `must be a non-empty list of ${PAYMENT_METHODS.join(', ')}`);
  }
  const numbers = {} as Record<keyof typeof CHECKOUT, number>;
  for (const [name, field] of Object.entries(CHECKOUT) as Array<[keyof typeof CHECKOUT, NumberField]>) {
    numbers[name] = options[name] ?? field.default;
    const problem = numberProblem(field, numbers[name]);
    if (problem) bad(name, problem);
  }
  const timeZone = options.timeZone ?? DEFAULT_TIME_ZONE;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    bad('timeZone', 'is not an IANA time zone');
  }
  for (const field of ['orderUrlTemplate', 'storeUrlTemplate', 'publicWebhookUrl'] as const) {
    const value = options[field];
    if (value !== undefined && !isHttpUrl(value.replace(/\{(order_id|display_id|reference)\}/g, 'x'))) {
      bad(field, 'must be an absolute http(s) URL');
    }
  }
  if (options.ecommerce) {
    const { storeId, checkout } = options.ecommerce;
    if (!Number.isSafeInteger(storeId)) bad('ecommerce.storeId', 'must be an integer');
    if (!Number.isSafeInteger(checkout)) bad('ecommerce.checkout', 'must be an integer');
  }
  const textLimits = resolveTextLimits(options.textLimits, bad);
  if (options.referrerNamespace !== undefined && !isReferrerNamespace(options.referrerNamespace)) {
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
