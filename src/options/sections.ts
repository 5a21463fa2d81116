import type { StatusDispatchSettings } from '../core/status-dispatcher.service';
import { intProblem, PAYMENT_METHODS, SETTING_LIST, SETTINGS } from '../core/settings.schema';
import type { CheckoutOptions, ResolvedCheckoutOptions } from '../checkout/checkout.options';
import { isReferrerNamespace } from '../checkout/checkout.options';
import { resolveTextLimits } from '../checkout/text-limits';
import { isHttpUrl } from '../gateway/dto/validators';
import type { PaymentMethod } from '../gateway/types';
import type { OpenReconciliationOptions, ResolvedOpenReconciliationOptions } from '../reconciliation/types';
import type { RefundsOptions, ResolvedRefundsOptions } from '../refunds/refund.options';
import { DEFAULT_SHIPMENT_EVENT } from '../shipping/constants';
import { defaultShipmentMapper } from '../shipping/shipping-options';
import type { ResolvedShippingOptions, ShippingModuleOptions } from '../shipping/types';
import type { ResolvedWebhooksOptions, WebhooksOptions, WebhooksTuning } from '../webhooks/types';

/*
 * Each section of the module's options (src/options/options.ts) with its defaults filled in and its values checked
 * at startup, a bad value refused naming the option. The module's own resolution (workers, forRootAsync) is in
 * resolve.ts.
 */

/**
 * `notifications` with its defaults, checked (0 turns the polling off). `pollOnStart` is not an option: the module
 * sets it from `workers`.
 */
export function resolveNotificationsOptions(
  options: StatusDispatchSettings = {},
): Required<StatusDispatchSettings> {
  const int = (
    name: 'pollIntervalMs' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'leaseMs',
    fallback: number,
  ) => {
    const value = options[name] ?? fallback;
    const min = name === 'pollIntervalMs' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min) {
      throw new Error(`notifications.${name}: must be an integer >= ${min}`);
    }
    return value;
  };
  return {
    pollIntervalMs: int('pollIntervalMs', 5000),
    retryBaseDelayMs: int('retryBaseDelayMs', 1000),
    retryMaxDelayMs: int('retryMaxDelayMs', 300_000),
    leaseMs: int('leaseMs', 60_000),
    pollOnStart: options.pollOnStart ?? true,
  };
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Where deliveries are received (`webhooks.path`). */
export const DEFAULT_WEBHOOK_PATH = 'webhooks/invoice-payments';
/** `webhooks.bodyLimitBytes`. */
export const DEFAULT_WEBHOOK_BODY_LIMIT = 256 * 1024;

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveWebhooksOptions(
  options: WebhooksOptions & WebhooksTuning = {},
): ResolvedWebhooksOptions {
  const positive = (value: number | undefined, fallback: number, name: string, allowZero = false): number => {
    const v = value ?? fallback;
    if (!Number.isSafeInteger(v) || v < 0 || (v === 0 && !allowZero)) {
      throw new Error(`webhooks.${name}: must be a ${allowZero ? 'non-negative' : 'positive'} integer`);
    }
    return v;
  };
  const path = (options.path ?? DEFAULT_WEBHOOK_PATH).replace(/^\/+|\/+$/g, '');
  if (!path || /[?#\s]/.test(path)) throw new Error('webhooks.path: must be a non-empty route path');
  if (options.merchantToken !== undefined && typeof options.merchantToken !== 'string') {
    throw new Error('webhooks.merchantToken: must be a string');
  }
  const inbox = options.inbox ?? {};
  return {
    path,
    bodyLimitBytes: positive(options.bodyLimitBytes, DEFAULT_WEBHOOK_BODY_LIMIT, 'bodyLimitBytes'),
    merchantToken: options.merchantToken ? options.merchantToken : null,
    allowEmptyMerchantPart: options.allowEmptyMerchantPart ?? true,
    lookupWindowMs: positive(options.lookupWindowMs, 1000, 'lookupWindowMs'),
    lookupsPerSecond: positive(options.lookupsPerSecond, 300, 'lookupsPerSecond'),
    maxJsonDepth: positive(options.maxJsonDepth, 64, 'maxJsonDepth'),
    inbox: {
      pollIntervalMs: positive(inbox.pollIntervalMs, 1000, 'inbox.pollIntervalMs', true),
      retryBaseDelayMs: positive(inbox.retryBaseDelayMs, 1000, 'inbox.retryBaseDelayMs'),
      retryMaxDelayMs: positive(inbox.retryMaxDelayMs, 300_000, 'inbox.retryMaxDelayMs'),
      unknownInvoiceWindowMs: positive(
        inbox.unknownInvoiceWindowMs,
        3600_000,
        'inbox.unknownInvoiceWindowMs',
      ),
      unknownLookupsPerWindow: positive(inbox.unknownLookupsPerWindow, 60, 'inbox.unknownLookupsPerWindow'),
      unknownLookupWindowMs: positive(inbox.unknownLookupWindowMs, 60_000, 'inbox.unknownLookupWindowMs'),
      retentionMs: positive(inbox.retentionMs, 30 * 86_400_000, 'inbox.retentionMs'),
      maxAttempts: positive(inbox.maxAttempts, 20, 'inbox.maxAttempts'),
      leaseMs: positive(inbox.leaseMs, 60_000, 'inbox.leaseMs'),
      batchSize: positive(inbox.batchSize, 50, 'inbox.batchSize'),
    },
  };
}

/** The defaults of {@link ResolvedOpenReconciliationOptions}. */
export const DEFAULT_RECONCILIATION: ResolvedOpenReconciliationOptions = {
  intervalMs: 10_000,
  batchSize: 50,
  maxCallsPerMinute: 60,
  leaseMs: 60_000,
  stepsMs: [60_000, 300_000, 900_000, HOUR],
  hourlyUntilMs: DAY,
  dueDateMarginMs: 3 * DAY,
  minimumWindowMs: 30 * DAY,
  catchUpOnStartMs: 3 * DAY,
};

/** Fills in the defaults and checks the values, naming the option at fault. */
export function resolveReconciliationOptions(
  options: OpenReconciliationOptions = {},
): ResolvedOpenReconciliationOptions {
  const d = DEFAULT_RECONCILIATION;
  const int = (
    name: keyof ResolvedOpenReconciliationOptions,
    value: unknown,
    fallback: number,
    min: number,
  ) => {
    const v = value ?? fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
      throw new Error(`reconciliation.${name}: must be an integer >= ${min}`);
    }
    return v;
  };
  const steps = options.stepsMs ?? d.stepsMs;
  if (!Array.isArray(steps) || steps.some((s) => !Number.isSafeInteger(s) || s <= 0)) {
    throw new Error('reconciliation.stepsMs: must be a list of positive integers (ms)');
  }
  return {
    intervalMs: int('intervalMs', options.intervalMs, d.intervalMs, 0),
    batchSize: int('batchSize', options.batchSize, d.batchSize, 1),
    maxCallsPerMinute: int('maxCallsPerMinute', options.maxCallsPerMinute, d.maxCallsPerMinute, 1),
    leaseMs: int('leaseMs', options.leaseMs, d.leaseMs, 1000),
    stepsMs: [...steps].sort((a, b) => a - b),
    hourlyUntilMs: int('hourlyUntilMs', options.hourlyUntilMs, d.hourlyUntilMs, 0),
    dueDateMarginMs: int('dueDateMarginMs', options.dueDateMarginMs, d.dueDateMarginMs, 0),
    minimumWindowMs: int('minimumWindowMs', options.minimumWindowMs, d.minimumWindowMs, 0),
    catchUpOnStartMs: int('catchUpOnStartMs', options.catchUpOnStartMs, d.catchUpOnStartMs, 0),
  };
}

/** The options with their defaults; a field that is not a positive integer is refused, naming it. */
export function resolveRefundsOptions(options: RefundsOptions = {}, workers = true): ResolvedRefundsOptions {
  const resolved: ResolvedRefundsOptions = {
    recheckMs: 2000,
    maxRecheckMs: 300_000,
    lateMarginMs: 5000,
    unresolvedAlertMs: 900_000,
    repeatWindowMs: 600_000,
    pollIntervalMs: 5000,
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    // `workers` is the one switch of every background worker.
    autoStartWorker: workers,
  };
  for (const [name, value] of Object.entries(resolved)) {
    if (name === 'autoStartWorker') {
      if (typeof value !== 'boolean')
        throw new Error(`InvoicePaymentsModule: refunds.${name} must be a boolean`);
    } else if (!Number.isSafeInteger(value) || (value as number) < 0) {
      throw new Error(`InvoicePaymentsModule: refunds.${name} must be a non-negative integer (ms)`);
    }
  }
  return resolved;
}

/** Fills in the defaults of {@link ShippingOptions} and refuses nonsense, naming the option. */
export function resolveShippingOptions(options: ShippingModuleOptions = {}): ResolvedShippingOptions {
  const event = options.shipmentEvent ?? DEFAULT_SHIPMENT_EVENT;
  if (event !== false && (typeof event !== 'string' || event.trim() === '')) {
    throw new Error('shipping.shipmentEvent must be a non-empty event name or false');
  }
  const backoff = {
    initialDelayMs: positive('shipping.backoff.initialDelayMs', options.backoff?.initialDelayMs, 10_000),
    maxDelayMs: positive('shipping.backoff.maxDelayMs', options.backoff?.maxDelayMs, 30 * 60_000),
    factor: positive('shipping.backoff.factor', options.backoff?.factor, 2),
    jitter: options.backoff?.jitter ?? 0.5,
  };
  if (!(backoff.factor >= 1)) throw new Error('shipping.backoff.factor must be at least 1');
  if (!(backoff.jitter >= 0 && backoff.jitter <= 1))
    throw new Error('shipping.backoff.jitter must be between 0 and 1');
  if (backoff.maxDelayMs < backoff.initialDelayMs) {
    throw new Error('shipping.backoff.maxDelayMs must not be below shipping.backoff.initialDelayMs');
  }
  return {
    shipmentEvent: event,
    mapShipmentEvent: options.mapShipmentEvent ?? defaultShipmentMapper,
    autoStartWorker: options.autoStartWorker ?? true,
    pollIntervalMs: positive('shipping.pollIntervalMs', options.pollIntervalMs, 5_000),
    batchSize: positiveInteger('shipping.batchSize', options.batchSize, 10),
    leaseMs: positive('shipping.leaseMs', options.leaseMs, 60_000),
    maxAttempts: positiveInteger('shipping.maxAttempts', options.maxAttempts, 20),
    backoff,
    retentionMs: positive('shipping.retentionMs', options.retentionMs, 30 * 86_400_000),
  };
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new Error(`${name} must be a positive number`);
  }
  return value;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const n = positive(name, value, fallback);
  if (!Number.isInteger(n)) throw new Error(`${name} must be a positive integer`);
  return n;
}

/** `checkout.timeZone`. */
export const DEFAULT_TIME_ZONE = SETTINGS.timeZone.default;
const ALL_METHODS: readonly PaymentMethod[] = PAYMENT_METHODS;

/** Applies the defaults and refuses bad options at startup, naming the option. */
export function resolveCheckoutOptions(options: CheckoutOptions = {}): ResolvedCheckoutOptions {
  const problems: string[] = [];
  const bad = (field: string, why: string) => problems.push(`checkout.${field} ${why}`);

  const methods = options.methods ?? ALL_METHODS;
  if (methods.length === 0 || methods.some((m) => !ALL_METHODS.includes(m))) {
    bad('methods', `must be a non-empty list of ${ALL_METHODS.join(', ')}`);
  }
  const int = (field: keyof CheckoutOptions, value: unknown, min: number) => {
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < min)) {
      bad(field, `must be an integer of at least ${min}`);
    }
  };
  // The settings the admin page can change are checked against the same bounds here (settings.schema.ts).
  for (const [, declaration] of SETTING_LIST) {
    const key = declaration.checkout as keyof CheckoutOptions | undefined;
    if (declaration.kind !== 'int' || !key || options[key] === undefined) continue;
    const problem = intProblem(declaration, options[key]);
    if (problem) bad(key, problem);
  }
  int('creationWaitMs', options.creationWaitMs, 1);
  int('staleCreationMs', options.staleCreationMs, 1);
  int('unknownOutcomeRecheckMs', options.unknownOutcomeRecheckMs, 0);
  int('lateCreationMarginMs', options.lateCreationMarginMs, 0);
  int('unresolvedAlertMs', options.unresolvedAlertMs, 0);
  int('maxItems', options.maxItems, 1);
  int('maxTotalCents', options.maxTotalCents, 1);

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
    methods: [...methods],
    dueDays: options.dueDays ?? SETTINGS.dueDays.default,
    timeZone,
    maxInstallments: options.maxInstallments ?? SETTINGS.maxInstallments.default,
    orderUrlTemplate: options.orderUrlTemplate,
    storeUrlTemplate: options.storeUrlTemplate,
    ecommerce: options.ecommerce,
    publicWebhookUrl: options.publicWebhookUrl,
    mapAddress: options.mapAddress,
    creationWaitMs: options.creationWaitMs ?? 30_000,
    staleCreationMs: options.staleCreationMs ?? 120_000,
    unknownOutcomeRecheckMs: options.unknownOutcomeRecheckMs ?? 2_000,
    lateCreationMarginMs: options.lateCreationMarginMs ?? 60_000,
    unresolvedAlertMs: options.unresolvedAlertMs ?? 600_000,
    maxItems: options.maxItems ?? 500,
    maxTotalCents: options.maxTotalCents ?? 1_000_000_000,
    textLimits,
    referrerNamespace: options.referrerNamespace,
  };
}
