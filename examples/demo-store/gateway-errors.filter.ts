import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { GatewayError } from '../../src/index';

/** What the store answers when the payment service failed: the request was fine, the upstream was not. */
const STATUS: Record<GatewayError['kind'], number> = {
  validation: 400,
  not_found: 404,
  state_conflict: 409,
  mode: 409,
  authentication: 502,
  scope: 502,
  rate_limit: 503,
  unavailable: 502,
  timeout: 504,
  network: 502,
  outcome_unknown: 504,
  response: 502,
};

/**
 * The module throws the gateway client's errors as they are (a host decides what its API says). Their messages
 * never hold a secret (the client scrubs them), so the store passes them on with a status that says whose fault
 * it was.
 */
@Catch(GatewayError)
export class GatewayErrorsFilter implements ExceptionFilter {
  catch(error: GatewayError, host: ArgumentsHost): void {
    const statusCode = STATUS[error.kind];
    host
      .switchToHttp()
      .getResponse<{ status(code: number): { json(body: unknown): void } }>()
      .status(statusCode)
      .json({ statusCode, error: `payment_service_${error.kind}`, message: error.message });
  }
}
