/** Failures the sandbox answers with the A6 error body. */

/** Extra fields of an A6 body. */
export interface SandboxErrorDetails {
  errors?: Record<string, string[]>;
  required_scope?: string;
  status_code?: number;
}

/** An error with its HTTP status and A6 `code`; thrown by operations and controls alike. */
export class SandboxError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: SandboxErrorDetails = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}

export const badRequest = (message: string): SandboxError => new SandboxError(400, 'bad_request', message);
export const unauthorized = (message: string): SandboxError => new SandboxError(401, 'unauthorized', message);
export const notFound = (message: string): SandboxError => new SandboxError(404, 'not_found', message);

export function forbidden(scope: string): SandboxError {
  return new SandboxError(403, 'forbidden', `the token lacks the scope ${scope}`, { required_scope: scope });
}

export function stateConflict(message: string, statusCode: number): SandboxError {
  return new SandboxError(409, 'state_conflict', message, { status_code: statusCode });
}

/** 422 naming every bad field; the message names the first one. */
export function validationFailed(errors: Record<string, string[]>): SandboxError {
  const [field, messages] = Object.entries(errors)[0] ?? ['body', ['is invalid']];
  return new SandboxError(422, 'validation_error', `${field} ${messages[0]}`, { errors });
}

/** A one-field 422. */
export function invalidField(field: string, message: string): SandboxError {
  return validationFailed({ [field]: [message] });
}
