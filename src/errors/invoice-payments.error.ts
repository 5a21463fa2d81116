import type { ANSWERS } from './http-answers';

/** The stable codes of the module's own errors, one per HTTP answer (the service's failures: `GatewayError` kinds). */
export type InvoicePaymentsErrorCode = keyof typeof ANSWERS;

/**
 * Base of the module's own errors, which know no transport: callers switch on `code`; `details` holds the facts as
 * plain JSON. Each HTTP edge and host adapter maps `code` once.
 */
export abstract class InvoicePaymentsError extends Error {
  protected constructor(
    readonly code: InvoicePaymentsErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
