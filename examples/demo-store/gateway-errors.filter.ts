import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { GATEWAY_ERROR_HTTP_STATUS, GatewayError, PaymentBeingConfirmedError } from '../../src/index';

interface JsonResponse {
  status(code: number): JsonResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): void;
}

/**
 * The module throws the gateway client's errors as they are (a host decides what its API says). Their messages
 * never hold a secret (the client scrubs them), so the store passes them on with a status that says whose fault
 * it was.
 */
@Catch(GatewayError)
export class GatewayErrorsFilter implements ExceptionFilter {
  catch(error: GatewayError, host: ArgumentsHost): void {
    const statusCode = GATEWAY_ERROR_HTTP_STATUS[error.kind];
    host
      .switchToHttp()
      .getResponse<JsonResponse>()
      .status(statusCode)
      .json({ statusCode, error: `payment_service_${error.kind}`, message: error.message });
  }
}

/**
 * "The payment is being confirmed, retry in N s": the service may still be creating the order's invoice, so the
 * store answers 409 with `Retry-After` (seconds) and the storefront tries again then, instead of a new invoice.
 */
@Catch(PaymentBeingConfirmedError)
export class PaymentBeingConfirmedFilter implements ExceptionFilter {
  catch(error: PaymentBeingConfirmedError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<JsonResponse>();
    response.setHeader('Retry-After', String(error.retryAfterSeconds));
    response.status(409).json({
      statusCode: 409,
      error: 'payment_being_confirmed',
      message: error.message,
      retry_after_seconds: error.retryAfterSeconds,
    });
  }
}
