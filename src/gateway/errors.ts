/**
 * Every failure of a client call is a `GatewayError`; switch on `kind`. They never carry the request and their
 * texts are scrubbed of the call's secrets, so they can be logged safely.
 */
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

export interface GatewayErrorContext {
  operation: string;
  /** Which invoice, as `key=value` (`id=123`, `referrer=order-7`). */
  invoiceRef?: string;
  httpStatus?: number;
  /** The service's error `code` (A6). */
  serviceCode?: string;
  /** Whether the request may have reached the service; `false` only when it provably did not. */
  sent: boolean;
}

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
    /** `required_scope` (A6), else the scope the spec names for the operation. */
    readonly scope: string | null,
  ) {
    super(context, detail);
  }
}

/** 400/422, or input refused before sending (`sent: false`); `fields` maps field paths to messages. */
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
    /** `status_code` (A6). */
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
    readonly retryAfterMs: number | null,
  ) {
    super(context, detail);
  }
}

/** 5xx: the service failed. */
export class GatewayUnavailableError extends GatewayError {
  readonly kind = 'unavailable' as const;
}

/** No answer within the timeout. */
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
 * A write that changes an invoice may or may not have happened. Read the invoice back before sending it again:
 * a creation with `findInvoiceByReferrer(referrer)`, the other writes with `findInvoiceById`.
 */
export class GatewayOutcomeUnknownError extends GatewayError {
  readonly kind = 'outcome_unknown' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** A creation's `payment.referrer`; `''` for the other writes. */
    readonly referrer: string,
    readonly reason: 'timeout' | 'connection' | 'server_error' | 'unreadable_response',
  ) {
    super(context, detail);
  }
}

/** Refused locally: webhook resend in production, or to an unsafe URL. */
export class GatewayModeError extends GatewayError {
  readonly kind = 'mode' as const;
  constructor(context: Omit<GatewayErrorContext, 'sent'>, detail: string) {
    super({ ...context, sent: false }, detail);
  }
}

/** The wire profile says the service has no such operation: nothing was sent. */
export class GatewayUnsupportedError extends GatewayError {
  readonly kind = 'unsupported' as const;
  constructor(context: Omit<GatewayErrorContext, 'sent'>, detail: string) {
    super({ ...context, sent: false }, detail);
  }
}

/** A 2xx saying it failed (`success: false`/`error: true`), or an unreadable answer. */
export class GatewayResponseError extends GatewayError {
  readonly kind = 'response' as const;
  constructor(
    context: GatewayErrorContext,
    detail: string,
    /** An amount in the answer cannot be real (negative or absurd): worth an alert. */
    readonly implausibleAmount = false,
  ) {
    super(context, detail);
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
