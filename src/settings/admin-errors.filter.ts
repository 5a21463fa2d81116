import {
  applyDecorators,
  ArgumentsHost,
  BadRequestException,
  Catch,
  HttpException,
  Logger,
  PipeTransform,
  UseFilters,
  UseGuards,
  UsePipes,
  ValidationPipe,
  type ValidationError,
} from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { CheckoutValidationError, InvoiceOperationNotAllowedError } from '../core/invoice.errors';
import { idProblem } from '../domain/text-bounds';
import { GATEWAY_ERROR_HTTP_STATUS, type HttpAnswer } from '../errors/http-answers';
import { InvoicePaymentsErrorsFilter, sendHttpAnswer } from '../errors/invoice-payments-errors.filter';
import { isGatewayError } from '../gateway/errors';
import { InvoicePaymentsAdminGuard } from './admin.guard';
import { SecretBoxError } from './secret-box';
import { SettingsConflictError } from './settings.service';

/** class-validator's constraint names → the API's codes; `limitAt`: where the constraint holds its bound. */
const CONSTRAINT_CODES = {
  max: { code: 'too_large', limitAt: 0 },
  min: { code: 'too_small', limitAt: 0 },
  maxLength: { code: 'too_long', limitAt: 0 },
  isLength: { code: 'bad_length', limitAt: 1 },
  isInt: { code: 'not_integer' },
  isString: { code: 'not_text' },
  isIn: { code: 'not_allowed_value' },
  matches: { code: 'bad_format' },
  isArray: { code: 'not_list' },
  arrayMinSize: { code: 'empty_list' },
  arrayUnique: { code: 'repeated' },
  isObject: { code: 'not_object' },
  isHttpUrl: { code: 'not_url' },
  isTimeZone: { code: 'not_time_zone' },
  isCalendarDate: { code: 'not_date' },
  isIsoInstant: { code: 'not_instant' },
  whitelistValidation: { code: 'unknown_field' },
} as const;

/** The code of an answer whose error carries none, by HTTP status. */
const STATUS_CODES = {
  400: 'invalid',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'too_many_requests',
  500: 'internal',
} as const;

/** Stable codes of the admin API's errors: the page words them in the reader's language. */
export const ADMIN_ERROR_CODES = [
  ...Object.values(CONSTRAINT_CODES).map((c) => c.code),
  'too_early',
  'no_encryption_key',
  'action_not_allowed',
  ...Object.values(STATUS_CODES),
] as const;

export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/** One problem of a 400; `limit`: the bound broken (a number, or a `YYYY-MM-DD` day for `too_early`). */
interface AdminFieldProblem {
  field: string;
  code: AdminErrorCode;
  limit?: number | string;
  message: string;
}

function codeOfStatus(status: number): AdminErrorCode {
  return STATUS_CODES[status as keyof typeof STATUS_CODES] ?? (status >= 500 ? 'internal' : 'invalid');
}

/** The bound of `constraint` on `target`'s `property`, from class-validator's metadata. */
function limitOf(target: object | undefined, property: string, constraint: string, at: number) {
  const value: unknown = target
    ? getMetadataStorage()
        .getTargetValidationMetadatas(target.constructor, '', true, false)
        .find((m) => m.propertyName === property && m.name === constraint)?.constraints?.[at]
    : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** class-validator's (nested) errors, one problem per broken constraint, fields as dotted paths. */
function validationProblems(errors: ValidationError[], parent = ''): AdminFieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]): AdminFieldProblem => {
      const known = CONSTRAINT_CODES[constraint as keyof typeof CONSTRAINT_CODES] ?? { code: 'invalid' };
      const at = 'limitAt' in known ? known.limitAt : undefined;
      const limit = at === undefined ? undefined : limitOf(error.target, error.property, constraint, at);
      return { field, code: known.code, ...(limit !== undefined ? { limit } : {}), message };
    });
    return [...own, ...validationProblems(error.children ?? [], field)];
  });
}

export function problemsOf(
  errors: Record<string, string[]>,
  code: AdminErrorCode = 'invalid',
  limit?: number | string,
): AdminFieldProblem[] {
  return Object.entries(errors).flatMap(([field, messages]) =>
    messages.map((message) => ({ field, code, ...(limit !== undefined ? { limit } : {}), message })),
  );
}

/** The admin API's one 400: `errors` (messages per field), `problems`, and the first one's `code`, `field`, `limit`. */
export function adminValidationError(problems: AdminFieldProblem[]): BadRequestException {
  const errors: Record<string, string[]> = {};
  for (const { field, message } of problems) (errors[field] ??= []).push(message);
  const [first] = problems;
  return new BadRequestException({
    statusCode: 400,
    error: 'Bad Request',
    code: first?.code ?? 'invalid',
    field: first?.field ?? '',
    ...(first?.limit !== undefined ? { limit: first.limit } : {}),
    message: `invalid ${Object.keys(errors).join(', ')}`,
    errors,
    problems,
  });
}

/** A path id checked before it reaches SQL: a NUL byte or a 10 kB string is a 400 naming `id`. */
export class AdminIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    const problem = idProblem(value);
    if (problem) throw adminValidationError(problemsOf({ id: [problem] }));
    return value as string;
  }
}

/**
 * Every admin answer carries a stable `code` beside the English `message`. Staff see more than a shopper: field
 * errors, the refused action, gateway errors by kind (scrubbed by the client); anything unexpected is a bare 500.
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
      return answer(409, 'action_not_allowed', message, { action, reason, invoiceStatus }, 'Conflict');
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
 * An admin API controller: guarded, input checked, errors answered as above. Unknown fields are errors, never
 * stripped; rejected values are never echoed (a mistyped secret stays out of logs).
 */
export function AdminApi(): ClassDecorator {
  const pipe = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // The target only lets the codes name their bounds (`limit`).
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => adminValidationError(validationProblems(errors)),
  });
  return applyDecorators(UseGuards(InvoicePaymentsAdminGuard), UsePipes(pipe), UseFilters(AdminErrorsFilter));
}
