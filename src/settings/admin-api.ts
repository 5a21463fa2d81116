import {
  All,
  applyDecorators,
  ArgumentMetadata,
  ArgumentsHost,
  Catch,
  HttpException,
  Logger,
  NotFoundException,
  PipeTransform,
  UseFilters,
  UseGuards,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../core/invoice.errors';
import { idProblem } from '../domain/text-and-days';
import {
  GATEWAY_ERROR_HTTP_STATUS,
  InvoicePaymentsErrorsFilter,
  sendHttpAnswer,
  type HttpAnswer,
} from '../errors/http-answers';
import { isGatewayError } from '../gateway/errors';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../gateway/json';
import { statusView } from './admin-invoices.service';
import { adminValidationError, codeOfStatus, problemsOf, validationProblems } from './admin-problems';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { SecretBoxError } from './secret-box';
import { SettingsConflictError } from './settings.service';

/** A path's `:id` checked before it reaches SQL: a NUL byte or a 10 kB string is a 400 naming `id`. */
class AdminIdPipe implements PipeTransform {
  transform(value: unknown, { type, data }: ArgumentMetadata): unknown {
    const problem = type === 'param' && data === 'id' ? idProblem(value) : null;
    if (problem) throw adminValidationError(problemsOf({ id: [problem] }));
    return value;
  }
}

/** Refuses a body nested deeper than `MAX_JSON_DEPTH` before class-transformer's recursion overflows the stack. */
class AdminValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && exceedsJsonDepth(value)) {
      const problem = `body must not be nested deeper than ${MAX_JSON_DEPTH} levels`;
      throw adminValidationError(problemsOf({ body: [problem] }));
    }
    return super.transform(value, metadata);
  }
}

/**
 * The admin API's check of a body: no deeper than `MAX_JSON_DEPTH`; unknown fields are errors, never stripped;
 * rejected values are never echoed (a mistyped secret stays out of logs). Medusa's settings route runs the same pipe
 * on its body.
 */
export function adminValidationPipe(): ValidationPipe {
  return new AdminValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // The target only lets the codes name their bounds (`limit`).
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => adminValidationError(validationProblems(errors)),
  });
}

/**
 * Every admin answer carries a stable `code` beside the English `message`. Staff see more than a shopper: field
 * errors, the refused action, gateway errors by kind (scrubbed by the client); anything unexpected is a bare 500.
 */
@Catch()
class AdminErrorsFilter extends InvoicePaymentsErrorsFilter {
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
      // The status's key names its text on the admin page.
      const invoiceStatusKey = statusView(invoiceStatus)?.key ?? null;
      const extra = { action, reason, invoiceStatus, invoiceStatusKey };
      return answer(409, 'action_not_allowed', message, extra, 'Conflict');
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const body = error.getResponse();
      const json = typeof body === 'string' ? { statusCode: status, message: body } : body;
      return { status, body: { code: codeOfStatus(status), ...json } };
    }
    if (isGatewayError(error)) {
      const fields = 'fields' in error ? { errors: error.fields } : {};
      const scope = 'scope' in error && error.scope ? { requiredScope: error.scope } : {};
      const status = GATEWAY_ERROR_HTTP_STATUS[error.kind];
      return answer(status, `gateway_${error.kind}`, error.message, { ...fields, ...scope });
    }
    const domain = this.answerOf(error);
    if (domain) return { ...domain, body: { code: codeOfStatus(domain.status), ...domain.body } };
    if (error instanceof SettingsConflictError) return answer(409, 'conflict', error.message, {}, 'Conflict');
    if (error instanceof SecretBoxError) {
      this.logger.error(`stored settings could not be read: ${error.message}`);
      return answer(500, 'settings_unreadable', error.message);
    }
    // Only encrypted secrets ever reach the database or the client's errors, so a message here holds none.
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    this.logger.error(`admin request failed: ${detail}`);
    return { status: 500, body: { statusCode: 500, code: 'internal', message: 'Internal server error' } };
  }
}

/** `error` is the code unless a reason phrase is given. */
function answer(status: number, code: string, message: string, extra = {}, error = code): HttpAnswer {
  return { status, body: { statusCode: status, error, code, message, ...extra } };
}

/**
 * An admin API controller: guarded, its path ids and input checked ({@link adminValidationPipe}), errors answered by
 * `AdminErrorsFilter`.
 */
export function AdminApi(): ClassDecorator {
  const pipes = UsePipes(new AdminIdPipe(), adminValidationPipe());
  return applyDecorators(UseGuards(InvoicePaymentsAdminGuard), pipes, UseFilters(AdminErrorsFilter));
}

/** Every other admin path: guarded, so probing cannot list the routes; a 404 that does not repeat the path. */
@AdminApi()
export class AdminNotFoundController {
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }
}
