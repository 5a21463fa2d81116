import { createHash, randomBytes } from 'node:crypto';

/**
 * The shopper's status token: 32 random bytes as base64url (43 characters, 256 bits). It is handed out once by
 * `initiatePayment` and never stored: the record keeps its SHA-256 only, so a copy of the database reads no payment
 * through the status route.
 */
export interface StatusToken {
  token: string;
  /** SHA-256 of the token, hex (64 characters): what the record keeps. */
  hash: string;
}

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

export function mintStatusToken(): StatusToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: statusTokenHash(token) };
}

export function statusTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What is wrong with a token from a request (its format, before any hash or SQL); `null`: well formed. */
export function statusTokenProblem(token: unknown): string | null {
  if (typeof token !== 'string') return 'must be text';
  return TOKEN_FORMAT.test(token) ? null : 'must be 43 base64url characters';
}
