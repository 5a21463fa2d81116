import {
  applyDecorators,
  ArgumentsHost,
  Catch,
  HttpException,
  Logger,
  UseFilters,
  UseGuards,
  UsePipes,
} from '@nestjs/common';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../checkout/errors';
import { GATEWAY_ERROR_HTTP_STATUS, type HttpAnswer } from '../errors/http-answers';
import { InvoicePaymentsErrorsFilter, sendHttpAnswer } from '../errors/invoice-payments-errors.filter';
import { isGatewayError } from '../gateway/errors';
import { adminValidationError, adminValidationPipe, codeOfStatus, problemsOf } from './admin-error-codes';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { SecretBoxError } from './secret-box';
import { SettingsConflictError } from './settings.service';

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
    sendHttpAnswer(host.switchToHttp().getResponse(), this.adminAnswerOf(error));
  }

  private adminAnswerOf(error: unknown): HttpAnswer {
    if (error instanceof CheckoutValidationError) {
      return this.adminAnswerOf(adminValidationError(problemsOf(error.fields)));
    }
    if (error instanceof InvoiceOperationNotAllowedError) {
      const { operation: action, reason, invoiceStatus, message } = error;
      const body = {
        statusCode: 409,
        error: 'Conflict',
        code: 'action_not_allowed',
        action,
        reason,
        invoiceStatus,
      };
      return { status: 409, body: { ...body, message } };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const body = error.getResponse();
      const json = typeof body === 'string' ? { statusCode: status, message: body } : body;
      return { status, body: { code: codeOfStatus(status), ...json } };
    }
    if (isGatewayError(error)) {
      const statusCode = GATEWAY_ERROR_HTTP_STATUS[error.kind];
      const fields = 'fields' in error ? (error.fields as Record<string, string[]>) : undefined;
      const code = 'gateway_' + error.kind;
      const body = { statusCode, error: code, code, message: error.message };
      return {
        status: statusCode,
        body: {
          ...body,
          ...(fields ? { errors: fields } : {}),
          ...('scope' in error && error.scope ? { requiredScope: error.scope } : {}),
        },
      };
    }
    const answer = this.answerOf(error);
    if (answer) return { ...answer, body: { code: codeOfStatus(answer.status), ...answer.body } };
    if (error instanceof SettingsConflictError) {
      return {
        status: 409,
        body: { statusCode: 409, error: 'Conflict', code: 'conflict', message: error.message },
      };
    }
    if (error instanceof SecretBoxError) {
      this.logger.error(`stored settings could not be read: ${error.message}`);
      const code = 'settings_unreadable';
      return { status: 500, body: { statusCode: 500, error: code, code, message: error.message } };
    }
    // Only encrypted secrets ever reach the database or the client's errors, so a message here holds none.
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    this.logger.error(`admin request failed: ${detail}`);
    return { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } };
  }
}

/** An admin API controller: guarded by {@link InvoicePaymentsAdminGuard}, input checked, errors answered as above. */
export function AdminApi(): ClassDecorator {
  return applyDecorators(
    UseGuards(InvoicePaymentsAdminGuard),
    UsePipes(adminValidationPipe()),
    UseFilters(AdminErrorsFilter),
  );
}
