import {
  All,
  applyDecorators,
  NotFoundException,
  PipeTransform,
  UseFilters,
  UseGuards,
  UsePipes,
  ValidationPipe,
} from '@nestjs/common';
import { idProblem } from '../domain/text-and-days';
import { AdminErrorsFilter } from './admin-errors.filter';
import { adminValidationError, problemsOf, validationProblems } from './admin-problems';
import { InvoicePaymentsAdminGuard } from './admin.guard';

/** A path id checked before it reaches SQL: a NUL byte or a 10 kB string is a 400 naming `id`. */
export class AdminIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    const problem = idProblem(value);
    if (problem) throw adminValidationError(problemsOf({ id: [problem] }));
    return value as string;
  }
}

/**
 * The admin API's check of a body: unknown fields are errors, never stripped; rejected values are never echoed (a
 * mistyped secret stays out of logs). Medusa's settings route runs the same pipe on its body.
 */
export function adminValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // The target only lets the codes name their bounds (`limit`).
    validationError: { target: true, value: false },
    exceptionFactory: (errors) => adminValidationError(validationProblems(errors)),
  });
}

/** An admin API controller: guarded, input checked ({@link adminValidationPipe}), errors answered by `AdminErrorsFilter`. */
export function AdminApi(): ClassDecorator {
  const pipe = adminValidationPipe();
  return applyDecorators(UseGuards(InvoicePaymentsAdminGuard), UsePipes(pipe), UseFilters(AdminErrorsFilter));
}

/**
 * Every other admin path: guarded, so probing cannot list the routes; a 404 that does not repeat the path. Mounted
 * after the other admin controllers, since routes match in the order they are registered.
 */
@AdminApi()
export class AdminNotFoundController {
  @All(['/', '*path'])
  notFound(): never {
    throw new NotFoundException({ statusCode: 404, error: 'Not Found', message: 'no such admin route' });
  }
}
