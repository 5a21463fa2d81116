import type * as Otel from '@opentelemetry/api';
import type { GatewayCallObserver } from '../gateway/gateway.options';
import type { Clock } from '../domain/clock';
import { SESSION_STATUSES } from '../domain/status-table';
import { ALERT_KINDS } from './events';

/*
 * The module's metrics and spans, through `@opentelemetry/api` only: an optional peer, so it is loaded here with a
 * guarded require and every record is a no-op when it is absent (or when the host registered no SDK). Attributes
 * are enums only (operations, outcomes, kinds, sources): never a token, an id, a document, an e-mail or a name.
 */

type Api = typeof Otel;

const api = ((): Api | null => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@opentelemetry/api') as Api;
  } catch {
    return null;
  }
})();
const SCOPE = 'nestjs-invoice-payments';

/**
 * The counters and histograms: name, unit, description (Prometheus' HELP). A duration's name ends `_seconds`, so
 * exporters that add the unit's suffix do not add it twice. A histogram's unit is `s`; every other is a counter.
 */
export const INSTRUMENTS = {
  deliveries: ['invoice_payments.webhook.deliveries', '{delivery}', 'Webhook deliveries by outcome'],
  changes: ['invoice_payments.status.changes', '{change}', 'Status changes told to the host, by source'],
  rounds: ['invoice_payments.reconciliation.rounds', '{round}', 'Reconciliation rounds this instance led'],
  findings: ['invoice_payments.reconciliation.findings', '{invoice}', 'What reconciliation rounds found'],
  refunds: ['invoice_payments.refunds', '{refund}', 'Refunds by outcome'],
  alerts: ['invoice_payments.alerts', '{alert}', 'Alerts raised, by kind'],
  tracking: ['invoice_payments.tracking.codes', '{code}', 'Tracking codes posted or given up'],
  calls: ['invoice_payments.service.call.duration_seconds', 's', 'Calls to the payment service'],
  portDelay: [
    'invoice_payments.payment.port_delay_seconds',
    's',
    'From a payment applied to the host port told',
  ],
} as const;

/** The sources status changes are counted under (the module's own sources grouped as an operator reads them). */
const CHANGE_SOURCES = ['webhook', 'reconciliation', 'checkout', 'operation'] as const;

const each = (key: string, values: readonly string[]): Array<Record<string, string>> =>
  values.map((v) => ({ [key]: v }));

/**
 * By counter, every attribute set, so every series starts at 0: Prometheus' `increase()` sees an event only as a
 * rise between two samples, so a series born at 1 would hide a process's first alert.
 */
export const KNOWN_ATTRIBUTES: Record<string, Array<Record<string, string>>> = {
  deliveries: each('invoice_payments.outcome', ['accepted', 'duplicate', 'ignored', 'refused', 'forged']),
  changes: CHANGE_SOURCES.flatMap((source) =>
    SESSION_STATUSES.map((status) => ({
      'invoice_payments.source': source,
      'invoice_payments.status': status,
    })),
  ),
  rounds: [{}],
  findings: each('invoice_payments.finding', ['checked', 'applied', 'closed', 'errors']),
  refunds: each('invoice_payments.outcome', ['made', 'refused', 'unknown']),
  alerts: each('invoice_payments.alert.kind', ALERT_KINDS),
  tracking: each('invoice_payments.outcome', ['posted', 'failed']),
};

/** Buckets of the durations, in seconds (the SDK's default ones suit milliseconds). */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900];

type Name = keyof typeof INSTRUMENTS;
type CounterName = Exclude<Name, 'calls' | 'portDelay'>;
type Attributes = Record<string, string | number>;

let instruments: { provider: unknown; of: Record<Name, Otel.Counter & Otel.Histogram> } | null = null;

/** The meter of the meter provider registered now (the host's SDK), or `null` without the API. */
export function meter(): Otel.Meter | null {
  return api ? api.metrics.getMeter(SCOPE) : null;
}

/**
 * The instruments, made again when the host registers (or replaces) its meter provider: meters are not proxies.
 * Each counter starts at 0 for every attribute set it knows, so that a rate or `increase()` sees its first event.
 */
export function current(): Record<Name, Otel.Counter & Otel.Histogram> | null {
  if (!api) return null;
  const provider = api.metrics.getMeterProvider();
  if (instruments?.provider === provider) return instruments.of;
  const m = provider.getMeter(SCOPE);
  const of = Object.fromEntries(
    Object.entries(INSTRUMENTS).map(([key, [name, unit, description]]) => [
      key,
      unit === 's'
        ? m.createHistogram(name, { unit, description, advice: { explicitBucketBoundaries: SECONDS } })
        : m.createCounter(name, { unit, description }),
    ]),
  ) as Record<Name, Otel.Counter & Otel.Histogram>;
  instruments = { provider, of };
  for (const [name, sets] of Object.entries(KNOWN_ATTRIBUTES)) {
    for (const attributes of sets) of[name as CounterName].add(0, attributes);
  }
  return of;
}

/** Adds to one of the module's counters. */
export function count(name: CounterName, attributes: Attributes, by = 1): void {
  if (by > 0) current()?.[name].add(by, attributes);
}

/** Records how long after the payment was applied the host's port was told. */
export function recordPortDelay(seconds: number): void {
  current()?.portDelay.record(Math.max(0, seconds));
}

/** Runs `work` in a span of the module's, a child of the active (the host's) trace context. */
export function traced<T>(name: string, attributes: Attributes, work: () => Promise<T>, client = false) {
  if (!api) return work();
  const kind = client ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
  return api.trace.getTracer(SCOPE).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work();
    } catch (err) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: kindOf(err) });
      span.setAttribute('error.type', kindOf(err));
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The latest word on a service (a call's, or the health check's probe): when, and `ok` or the failure's kind. */
export type LastCall = { at: number; outcome: string };

const lastCalls = new Map<string, LastCall>();

/** The outcome of the latest call to the service at `baseUrl`, if any was made in this process. */
export function lastCallTo(baseUrl: string): LastCall | null {
  return lastCalls.get(baseUrl) ?? null;
}

/**
 * The gateway's observer, as the module hands it to `GatewayClient`: each call to the service (its retries included)
 * a client span, its duration by operation and outcome kind, and its outcome kept for the health check.
 */
export function serviceCallObserver(clock: Clock): GatewayCallObserver {
  return {
    async observe({ baseUrl, operation }, work) {
      const started = clock.now();
      const named = { 'invoice_payments.operation': operation };
      let outcome = 'ok';
      try {
        return await traced(`invoice_payments ${operation}`, named, work, true);
      } catch (err) {
        outcome = kindOf(err);
        throw err;
      } finally {
        if (lastCalls.size > 20) lastCalls.clear();
        lastCalls.set(baseUrl, { at: clock.now(), outcome });
        const attributes: Attributes = { ...named, 'invoice_payments.outcome': outcome };
        if (outcome !== 'ok') attributes['error.type'] = outcome;
        current()?.calls.record((clock.now() - started) / 1000, attributes);
      }
    },
  };
}

/**
 * The webhook intake's answer, counted as `accepted`, `duplicate`, `ignored` (acknowledged, not needed: its invoice
 * is closed or not the store's), `forged` (the token) or `refused`.
 */
export function countDelivery<
  R extends { ok: boolean; status?: number; stored?: { duplicate?: boolean }; ignored?: unknown },
>(result: R) {
  const refusal = result.status === 401 ? 'forged' : 'refused';
  const taken = result.stored?.duplicate ? 'duplicate' : 'accepted';
  const outcome = result.ok ? (result.ignored ? 'ignored' : taken) : refusal;
  count('deliveries', { 'invoice_payments.outcome': outcome });
  return result;
}

const REFUND_OUTCOMES: Record<string, string> = { succeeded: 'made', failed: 'refused', unknown: 'unknown' };

/** A refund's ledger row moved to `state`: counted when that is an outcome (made, refused, unknown). */
export function countRefund(state: string | undefined, moved: boolean): void {
  const outcome = state && moved ? REFUND_OUTCOMES[state] : undefined;
  if (outcome) count('refunds', { 'invoice_payments.outcome': outcome });
}

/**
 * What a reconciliation round found. The round's own type stays with the reconciliation, a floor above; it is also
 * public, and a public type must not reach this file, whose types import the optional `@opentelemetry/api`.
 */
type RoundFindings = Record<'checked' | 'applied' | 'closed' | 'errors', number> & { leader: boolean };

/** A reconciliation round's result: counted when this instance led it, with what it found. */
export function countRound<Round extends RoundFindings>(round: Round): Round {
  if (!round.leader) return round;
  count('rounds', {});
  for (const finding of ['checked', 'applied', 'closed', 'errors'] as const) {
    count('findings', { 'invoice_payments.finding': finding }, round[finding]);
  }
  return round;
}

/** An error's `GatewayError` kind as an outcome (`error` for any other). */
export function kindOf(err: unknown): string {
  const kind = (err as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && /^[a-z_]{1,32}$/.test(kind) ? kind : 'error';
}
