/**
 * The one error hierarchy of the gateway client: every failure of a client call is a `GatewayError`; switch on
 * `kind` (or `instanceof`). These errors never carry the request (it holds the `Authorization` header), and every
 * text taken from the service is scrubbed of the call's secrets, so an error can be logged or serialized safely.
 */

/** Discriminator of the hierarchy. */
export type GatewayErrorKind =
  | 'authentication'
  | 'scope'
  | 'validation'
  | 'not_found'
  | 'state_conflict'
  | 'rate_limit'
  | 'unavailable'
  | 'timeout'
  | 'network'
  | 'outcome_unknown'
  | 'mode'
  | 'unsupported'
  | 'response';

/** What every gateway error says about the call that failed. */
export interface GatewayErrorContext {
  /** Client method that failed, e.g. `cancelInvoice`. */
  operation: string;
  /** Which invoice the call was about, as `key=value` (`id=123`, `invoice_id=abc`, `referrer=order-7`). */
  invoiceRef?: string;
  /** HTTP status the service answered, when it answered. */
  httpStatus?: number;
  /** The service's error `code` (A6), when it sent one. */
  serviceCode?: string;
  /**
   * Whether the request may have reached the service. `false` only when it provably did not (refused locally,
   * connection refused, DNS failure): then nothing happened there and the call can simply be made again.
   */
  sent: boolean;
}

/** Base class of every error the gateway client throws. */
export abstract class GatewayError extends Error {
  abstract readonly kind: GatewayErrorKind;
  readonly operation: string;
  readonly invoiceRef?: string;
  readonly httpStatus?: number;
  readonly serviceCode?: string;
  readonly sent: boolean;
  /** The message without the `operation(ref): ` prefix. */
  readonly detail: string;

  constructor(context: GatewayErrorContext, detail: string) {
    super(`${context.operation}(${context.invoiceRef ?? ''}): ${detail}`);
    this.name = new.target.name;
    this.operation = context.operation;
    if (context.invoiceRef !== undefined) this.invoiceRef = context.invoiceRef;
    if (context.httpStatus !== undefined) this.httpStatus = context.httpStatus;
    if (context.serviceCode !== undefined) this.serviceCode = context.serviceCode;
    this.sent = context.sent;
    this.detail = detail;
  }

  /** A plain, secret-free view for structured logs. */
  toJSON(): Record<string, unknown> {
    return { ...(this as object), name: this.name, message: this.message };
  }
}

/** 401: the access token is missing, unknown or expired. */
export class GatewayAuthenticationError extends GatewayError {
  readonly kind = 'authentication' as const;
}

/** 403: the token lacks the scope the operation needs. */
export class GatewayScopeError extends GatewayError {
  readonly kind = 'scope' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** The scope the service asked for (`required_scope`, A6), or the one the spec names for the operation. */
    readonly scope: string | null,
  ) {
    super(context, detail);
  }
}

/**
 * 400/422 from the service, or input refused before sending (then `sent` is false). `fields` maps field paths to
 * messages: service paths (`payment.amount`) for service errors, parameter paths (`payment.products[0].quantity`)
 * for local ones.
 */
export class GatewayValidationError extends GatewayError {
  readonly kind = 'validation' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    readonly fields: Record<string, string[]>,
  ) {
    super(context, detail);
  }
}

/** 404: no such invoice (or resource). */
export class GatewayNotFoundError extends GatewayError {
  readonly kind = 'not_found' as const;
}

/** 409: the operation is not allowed in the invoice's current status. */
export class GatewayStateConflictError extends GatewayError {
  readonly kind = 'state_conflict' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** The invoice's current `status.code`, when the service said (`status_code`, A6). */
    readonly statusCode?: number,
  ) {
    super(context, detail);
  }
}

/** 429: too many requests. */
export class GatewayRateLimitError extends GatewayError {
  readonly kind = 'rate_limit' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** How long the service asked to wait (`Retry-After`), when it said. */
    readonly retryAfterMs: number | null,
  ) {
    super(context, detail);
  }
}

/** 5xx: the service failed. */
export class GatewayUnavailableError extends GatewayError {
  readonly kind = 'unavailable' as const;
}

/** No answer within the configured timeout (operations other than creation). */
export class GatewayTimeoutError extends GatewayError {
  readonly kind = 'timeout' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    readonly timeoutMs: number,
  ) {
    super(context, detail);
  }
}

/** The connection failed. `networkCode` is the system code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`...). */
export class GatewayNetworkError extends GatewayError {
  readonly kind = 'network' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    readonly networkCode: string | null,
  ) {
    super(context, detail);
  }
}

/**
 * A write that changes an invoice (creation, refund, cancel, due-date change, tracking code) may or may not have
 * happened: sent, then a timeout, a dropped connection, a 5xx or an unreadable 2xx. Never send it again blindly:
 * read the invoice back first, a creation with `GatewayClient.findInvoiceByReferrer(referrer)`, the other writes
 * with `findInvoiceById` (status, `refunds.total`, due date). `operation` says which write it was.
 */
export class GatewayOutcomeUnknownError extends GatewayError {
  readonly kind = 'outcome_unknown' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** The `payment.referrer` of a creation, to look the invoice up; `''` for the other writes. */
    readonly referrer: string,
    /** What happened after sending: no answer in time, connection lost, a 5xx, or a 2xx that could not be read. */
    readonly reason: 'timeout' | 'connection' | 'server_error' | 'unreadable_response',
  ) {
    super(context, detail);
  }
}

/** Refused locally because of the mode or destination: webhook resend in production, unsafe resend URL. */
export class GatewayModeError extends GatewayError {
  readonly kind = 'mode' as const;
  constructor(context: Omit<GatewayErrorContext, 'sent'>, detail: string) {
    super({ ...context, sent: false }, detail);
  }
}

/** The wire profile says the service has no such operation (e.g. no authenticate operation): nothing was sent. */
export class GatewayUnsupportedError extends GatewayError {
  readonly kind = 'unsupported' as const;
  constructor(context: Omit<GatewayErrorContext, 'sent'>, detail: string) {
    super({ ...context, sent: false }, detail);
  }
}

/** The service answered something unusable: a 200 with `success: false`/`error: true`, or an unreadable body. */
export class GatewayResponseError extends GatewayError {
  readonly kind = 'response' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** An amount in the answer cannot be real (negative or absurd): nothing of it was used; worth an alert. */
    readonly implausibleAmount = false,
  ) {
    super(context, detail);
  }
}

/** Type guard: any error of this hierarchy. */
export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
