import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { InvoicePaymentsErrorsFilter, PaymentBeingConfirmedError } from '../../src/index';

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
 * "The payment is being confirmed, retry in N s": the service may still be creating the order's invoice, so the
 * store answers the module's status (409, 503 when the service could not be asked) with `Retry-After` (seconds) and
 * the retry time in the body, and the storefront tries again then, instead of a new invoice.
 */
@Catch(PaymentBeingConfirmedError)
export class PaymentBeingConfirmedFilter implements ExceptionFilter {
  catch(error: PaymentBeingConfirmedError, host: ArgumentsHost): void {
    const { status } = new InvoicePaymentsErrorsFilter().answerOf(error)!;
    const body = {
      error: 'payment_being_confirmed',
      message: error.message,
      retry_after_seconds: error.retryAfterSeconds,
    };
    reply(host, status, body, error.retryAfterSeconds);
  }
}

/**
 * Everything the store answers (registered app-wide): the module's errors and the payment service's with the module's
 * status and body (`InvoicePaymentsErrorsFilter`: a plain sentence when the service failed, never the client's
 * details), other HTTP exceptions with theirs, except that a 404 never repeats the path it was asked for and a 500
 * says only the sentence below; anything unexpected is that 500, the details in the log only.
 */
@Catch()
export class ShopperErrorsFilter extends InvoicePaymentsErrorsFilter {
  private readonly logger = new Logger('DemoStore');

  override catch(error: unknown, host: ArgumentsHost): void {
    if (error instanceof PaymentBeingConfirmedError)
      return new PaymentBeingConfirmedFilter().catch(error, host);
    const answer = this.answerOf(error) ?? httpExceptionAnswer(error);
    if (answer?.status === 404) return reply(host, 404, { error: 'Not Found', message: 'Not found' });
    // A 502/503/504 the module chose (the service failing, the webhook route's "cannot validate now" with
    // Retry-After) keeps its status and its plain message, so the caller retries; only a 500 is replaced below.
    if (answer && answer.status !== 500)
      return reply(host, answer.status, answer.body, answer.retryAfterSeconds);
    const refused = clientErrorOf(error);
    if (refused) return reply(host, refused.status, { error: refused.error, message: refused.message });
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    reply(host, 500, {
      error: 'Internal Server Error',
      message: 'Something went wrong on our side. Please try again in a moment.',
    });
  }
}

/** An HTTP exception's status and body (a string body as `{ message }`). */
function httpExceptionAnswer(
  error: unknown,
): { status: number; body: object; retryAfterSeconds?: number } | null {
  if (!(error instanceof HttpException)) return null;
  const body = error.getResponse();
  return { status: error.getStatus(), body: typeof body === 'string' ? { message: body } : body };
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
