import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { GatewayError } from '../gateway/errors';
import { httpAnswerOf, type HttpAnswer } from './http-answers';
import { InvoicePaymentsError } from '../domain/invoice-payments.error';

/** An Express (`setHeader`/`json`) or Fastify (`header`/`send`) response. */
interface HttpResponse {
  status(code: number): unknown;
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
  json?(body: unknown): unknown;
  send?(body: unknown): unknown;
}

export function setResponseHeader(response: Partial<HttpResponse>, name: string, value: string): void {
  if (response.setHeader) response.setHeader(name, value);
  else response.header?.(name, value);
}

export function sendHttpAnswer(response: HttpResponse, answer: HttpAnswer): void {
  if (answer.retryAfterSeconds !== undefined) {
    setResponseHeader(response, 'Retry-After', String(answer.retryAfterSeconds));
  }
  response.status(answer.status);
  if (response.json) response.json(answer.body);
  else response.send?.(answer.body);
}

/**
 * The module's errors and `GatewayError`s as HTTP answers (400 with `fields`, 404, 409, 502/503/504 with
 * `Retry-After` when known). Register it app-wide (`app.useGlobalFilters(new InvoicePaymentsErrorsFilter())`);
 * outside HTTP the error is rethrown unchanged. A host's filter can extend it and use `answerOf`.
 */
@Catch(InvoicePaymentsError, GatewayError)
export class InvoicePaymentsErrorsFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const answer = host.getType() === 'http' ? this.answerOf(error) : null;
    if (!answer) throw error;
    sendHttpAnswer(host.switchToHttp().getResponse<HttpResponse>(), answer);
  }

  /** The status, body and `Retry-After` seconds of a module or gateway error; else `null`. */
  answerOf(error: unknown): HttpAnswer | null {
    return httpAnswerOf(error);
  }
}
