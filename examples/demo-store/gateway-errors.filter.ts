import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { GatewayError, PaymentBeingConfirmedError, PaymentServiceError } from '../../src/index';

interface JsonResponse {
  status(code: number): JsonResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): void;
}

function reply(host: ArgumentsHost, status: number, body: object, retryAfterSeconds?: number | null): void {
  const response = host.switchToHttp().getResponse<JsonResponse>();
  if (retryAfterSeconds) response.setHeader('Retry-After', String(retryAfterSeconds));
  response.status(status).json({ statusCode: status, ...body });
}

/**
 * A gateway error that reached the store without going through the provider (which already turns them into
 * `PaymentServiceError`): the same status and the same plain sentence, never the client's details (addresses,
 * system errors) that the shopper cannot act on.
 */
@Catch(GatewayError)
export class GatewayErrorsFilter implements ExceptionFilter {
  catch(error: GatewayError, host: ArgumentsHost): void {
    const http = new PaymentServiceError(error);
    reply(host, http.getStatus(), http.getResponse() as object, http.retryAfterSeconds);
  }
}

/**
 * "The payment is being confirmed, retry in N s": the service may still be creating the order's invoice, so the
 * store answers 409 (503 when the service could not be asked) with `Retry-After` (seconds) and the storefront
 * tries again then, instead of a new invoice.
 */
@Catch(PaymentBeingConfirmedError)
export class PaymentBeingConfirmedFilter implements ExceptionFilter {
  catch(error: PaymentBeingConfirmedError, host: ArgumentsHost): void {
    const body = {
      error: 'payment_being_confirmed',
      message: error.message,
      retry_after_seconds: error.retryAfterSeconds,
    };
    reply(host, error.getStatus(), body, error.retryAfterSeconds);
  }
}

/**
 * Everything else the store answers (registered app-wide): HTTP exceptions keep their status and body, except
 * that a 404 never repeats the path it was asked for and a 500 says only the sentence below; anything unexpected is
 * that 500, the details in the log only.
 */
@Catch()
export class ShopperErrorsFilter implements ExceptionFilter {
  private readonly logger = new Logger('DemoStore');

  catch(error: unknown, host: ArgumentsHost): void {
    if (error instanceof PaymentServiceError) {
      return reply(host, error.getStatus(), error.getResponse() as object, error.retryAfterSeconds);
    }
    if (error instanceof PaymentBeingConfirmedError)
      return new PaymentBeingConfirmedFilter().catch(error, host);
    if (error instanceof GatewayError) return new GatewayErrorsFilter().catch(error, host);
    if (error instanceof HttpException && error.getStatus() === 404) {
      return reply(host, 404, { error: 'Not Found', message: 'Not found' });
    }
    // A 502/503/504 the module chose (the webhook route's "cannot validate now" with Retry-After) keeps its status
    // and its plain message, so the sender retries; only a 500 is replaced by the sentence below.
    if (error instanceof HttpException && error.getStatus() !== 500) {
      const body = error.getResponse();
      return reply(host, error.getStatus(), typeof body === 'string' ? { message: body } : body);
    }
    const refused = clientErrorOf(error);
    if (refused) return reply(host, refused.status, { error: refused.error, message: refused.message });
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    reply(host, 500, {
      error: 'Internal Server Error',
      message: 'Something went wrong on our side. Please try again in a moment.',
    });
  }
}

/**
 * A refusal of Express' body parser (an `http-errors` error: too large, unknown charset, bad encoding): its 4xx
 * status and its own short message, which it marks `expose` as safe to show. Nest's default filter answers these the
 * same way; without this the store's catch-all made them a 500.
 */
function clientErrorOf(error: unknown): { status: number; error: string; message: string } | null {
  if (!(error instanceof Error)) return null;
  const { status, expose } = error as Error & { status?: unknown; expose?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status > 499) return null;
  return { status, error: error.name.replace(/Error$/, '') || 'Bad Request', message: error.message };
}
