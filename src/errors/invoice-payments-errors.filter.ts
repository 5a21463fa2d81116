import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { GatewayError } from '../gateway/errors';
import { httpAnswerOf, type HttpAnswer } from './http-answers';
import { InvoicePaymentsError } from './invoice-payments.error';

/** What an answer needs of the platform's response (Express has `setHeader`/`json`, Fastify `header`/`send`). */
interface HttpResponse {
  status(code: number): unknown;
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
  json?(body: unknown): unknown;
  send?(body: unknown): unknown;
}

/** Sets a header on an Express (`setHeader`) or Fastify (`header`) response. */
export function setResponseHeader(response: Partial<HttpResponse>, name: string, value: string): void {
  if (response.setHeader) response.setHeader(name, value);
  else response.header?.(name, value);
}

/** Writes `answer` (its status, `Retry-After` when it has one, the JSON body) on an Express or Fastify response. */
export function sendHttpAnswer(response: HttpResponse, answer: HttpAnswer): void {
  if (answer.retryAfterSeconds !== undefined) {
    setResponseHeader(response, 'Retry-After', String(answer.retryAfterSeconds));
  }
  response.status(answer.status);
  if (response.json) response.json(answer.body);
  else response.send?.(answer.body);
}

/**
 * The module's errors (and the payment service's, `GatewayError`) as HTTP answers. They carry no HTTP status of their
 * own: this filter is where they get one, from one table. Register it app-wide
 * (`app.useGlobalFilters(new InvoicePaymentsErrorsFilter())`, or `{ provide: APP_FILTER, useClass: ... }`) and let
 * the provider's errors out of your controllers: bad input is a 400 with `fields`, a conflict a 409, an unknown
 * session a 404, the service failing a 502/503/504 with a plain sentence (`Retry-After` when the service or a
 * payment being confirmed says when). Outside HTTP (GraphQL, microservices) the error is thrown on unchanged. A
 * host's own filter can extend it and use {@link InvoicePaymentsErrorsFilter.answerOf}.
 */
@Catch(InvoicePaymentsError, GatewayError)
export class InvoicePaymentsErrorsFilter implements ExceptionFilter {
  catch(error: unknown, host: ArgumentsHost): void {
    const answer = host.getType() === 'http' ? this.answerOf(error) : null;
    if (!answer) throw error;
    sendHttpAnswer(host.switchToHttp().getResponse<HttpResponse>(), answer);
  }

  /** The status, body and `Retry-After` seconds of one of the module's errors or a gateway error; else `null`. */
  answerOf(error: unknown): HttpAnswer | null {
    return httpAnswerOf(error);
  }
}
