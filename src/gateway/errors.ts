/** Every failure of a client call is a `GatewayError`; switch on `kind`. Safe to log: no request, no secret. */
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
  declare readonly operation: string;
  declare readonly invoiceRef?: string;
  declare readonly httpStatus?: number;
  declare readonly serviceCode?: string;
  declare readonly sent: boolean;
  /** The message without the `operation(ref): ` prefix. */
  declare readonly detail: string;

  /** `fields`: a subclass's own (declared there). */
  constructor(context: GatewayErrorContext, detail: string, fields: object = {}) {
    super(`${context.operation}(${context.invoiceRef ?? ''}): ${detail}`);
    const { operation, invoiceRef, httpStatus, serviceCode, sent } = context;
    Object.assign(this, { operation, invoiceRef, httpStatus, serviceCode, sent, detail, ...fields });
    this.name = new.target.name;
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
  /** `required_scope` (A6), else the scope the spec names for the operation. */
  declare readonly scope: string | null;
  constructor(context: GatewayErrorContext, detail: string, scope: string | null) {
    super(context, detail, { scope: scope });
  }
}

/** 400/422, or input refused before sending (`sent: false`); `fields` maps field paths to messages. */
export class GatewayValidationError extends GatewayError {
  readonly kind = 'validation' as const;
  declare readonly fields: Record<string, string[]>;
  constructor(context: GatewayErrorContext, detail: string, fields: Record<string, string[]>) {
    super(context, detail, { fields: fields });
  }
}

/** 404: no such invoice (or resource). */
export class GatewayNotFoundError extends GatewayError {
  readonly kind = 'not_found' as const;
}

/** 409: the operation is not allowed in the invoice's current status. */
export class GatewayStateConflictError extends GatewayError {
  readonly kind = 'state_conflict' as const;
  /** `status_code` (A6). */
  declare readonly statusCode?: number;
  constructor(context: GatewayErrorContext, detail: string, statusCode?: number) {
    super(context, detail, { statusCode: statusCode });
  }
}

/** 429: too many requests. */
export class GatewayRateLimitError extends GatewayError {
  readonly kind = 'rate_limit' as const;
  declare readonly retryAfterMs: number | null;
  constructor(context: GatewayErrorContext, detail: string, retryAfterMs: number | null) {
    super(context, detail, { retryAfterMs: retryAfterMs });
  }
}

/** 5xx: the service failed. */
export class GatewayUnavailableError extends GatewayError {
  readonly kind = 'unavailable' as const;
}

/** No answer within the timeout. */
export class GatewayTimeoutError extends GatewayError {
  readonly kind = 'timeout' as const;
  declare readonly timeoutMs: number;
  constructor(context: GatewayErrorContext, detail: string, timeoutMs: number) {
    super(context, detail, { timeoutMs: timeoutMs });
  }
}

/** The connection failed. `networkCode` is the system code (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`...). */
export class GatewayNetworkError extends GatewayError {
  readonly kind = 'network' as const;
  declare readonly networkCode: string | null;
  constructor(context: GatewayErrorContext, detail: string, networkCode: string | null) {
    super(context, detail, { networkCode: networkCode });
  }
}

/** A write may or may not have happened: read the invoice back (by `referrer` after a creation) before a retry. */
export class GatewayOutcomeUnknownError extends GatewayError {
  readonly kind = 'outcome_unknown' as const;
  /** A creation's `payment.referrer`; `''` for the other writes. */
  declare readonly referrer: string;
  declare readonly reason: 'timeout' | 'connection' | 'server_error' | 'unreadable_response';
  constructor(context: GatewayErrorContext, detail: string, referrer: string, reason: OutcomeReason) {
    super(context, detail, { referrer, reason });
  }
}

type OutcomeReason = GatewayOutcomeUnknownError['reason'];

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
  /** An amount in the answer cannot be real (negative or absurd): worth an alert. */
  declare readonly implausibleAmount: boolean;
  constructor(context: GatewayErrorContext, detail: string, implausibleAmount = false) {
    super(context, detail, { implausibleAmount });
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
