import { ArgumentsHost, Catch, HttpException, Logger } from '@nestjs/common';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../checkout/errors';
import { GATEWAY_ERROR_HTTP_STATUS } from '../errors/http-answers';
import { InvoicePaymentsErrorsFilter, sendHttpAnswer } from '../errors/invoice-payments-errors.filter';
import { isGatewayError } from '../gateway/errors';
import { codeOfStatus } from './admin-error-codes';
import { adminValidationError } from './validation';
import { SecretBoxError } from './secret-box';
import { SettingsConflictError } from './settings.service';

interface JsonResponse {
  status(code: number): { json(body: unknown): void };
}

/**
 * Turns what the admin operations throw into JSON answers. Every answer has a stable `code` (see
 * `admin-error-codes.ts`) next to the English `message`, so the admin page can word it in the reader's language.
 * The module's errors get `InvoicePaymentsErrorsFilter`'s status and body; staff see more than a shopper where it
 * helps: the checkout's field errors in the admin API's 400 shape, which action a state refused, and gateway errors
 * themselves (they carry no secrets: the client scrubs them) by kind (`gateway_<kind>`). A secret that cannot be
 * decrypted names its key id; anything unexpected is a bare 500 whose details go to the log only.
 */
@Catch()
export class AdminErrorsFilter extends InvoicePaymentsErrorsFilter {
  private readonly logger = new Logger('InvoicePaymentsAdmin');

  override catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<JsonResponse>();
    if (error instanceof CheckoutValidationError) {
      // The checkout's field errors, in the admin API's one shape for a 400.
      response.status(400).json(adminValidationError(error.fields).getResponse());
      return;
    }
    if (error instanceof InvoiceOperationNotAllowedError) {
      // The invoice's state does not allow it: which action, why, and the status it was in.
      response.status(409).json({
        statusCode: 409,
        error: 'Conflict',
        code: 'action_not_allowed',
        action: error.operation,
        reason: error.reason,
        invoiceStatus: error.invoiceStatus,
        message: error.message,
      });
      return;
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const body = error.getResponse();
      const json = typeof body === 'string' ? { statusCode: status, message: body } : body;
      response.status(status).json({ code: codeOfStatus(status), ...json });
      return;
    }
    if (isGatewayError(error)) {
      const statusCode = GATEWAY_ERROR_HTTP_STATUS[error.kind];
      const fields = 'fields' in error ? (error.fields as Record<string, string[]>) : undefined;
      response.status(statusCode).json({
        statusCode,
        error: 'gateway_' + error.kind,
        code: 'gateway_' + error.kind,
        message: error.message,
        ...(fields ? { errors: fields } : {}),
        ...('scope' in error && error.scope ? { requiredScope: error.scope } : {}),
      });
      return;
    }
    const answer = this.answerOf(error);
    if (answer) {
      const body = { code: codeOfStatus(answer.status), ...answer.body };
      sendHttpAnswer(response, { ...answer, body });
      return;
    }
    if (error instanceof SettingsConflictError) {
      response
        .status(409)
        .json({ statusCode: 409, error: 'Conflict', code: 'conflict', message: error.message });
      return;
    }
    if (error instanceof SecretBoxError) {
      this.logger.error(`stored settings could not be read: ${error.message}`);
      response.status(500).json({
        statusCode: 500,
        error: 'settings_unreadable',
        code: 'settings_unreadable',
        message: error.message,
      });
      return;
    }
    // Only encrypted secrets ever reach the database or the client's errors, so a message here holds none.
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    this.logger.error(`admin request failed: ${detail}`);
    response.status(500).json({ statusCode: 500, code: 'internal', message: 'Internal server error' });
  }
}
