import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import { GATEWAY_ERROR_HTTP_STATUS, GatewayError } from '../../src/index';

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
      .getResponse<{ status(code: number): { json(body: unknown): void } }>()
      .status(statusCode)
      .json({ statusCode, error: `payment_service_${error.kind}`, message: error.message });
  }
}
