import {
  errorForResponse,
  errorForTimeout,
  errorForTransportFailure,
  FailureContext,
  parseRetryAfter,
  redact,
} from './error.mapper';
import {
  GatewayNetworkError,
  GatewayOutcomeUnknownError,
  GatewayResponseError,
  GatewayTimeoutError,
  GatewayUnavailableError,
} from './errors';

const NOW = Date.parse('2026-01-01T00:00:00Z');

const ctx = (safety: FailureContext['safety']): FailureContext => ({
  operation: 'op',
  invoiceRef: 'id=1',
  safety,
  secrets: ['s3cr3t-token'],
  referrer: 'ref-1',
});

describe('error mapping', () => {
  it('redacts a secret in plain, base64 and URL-encoded forms, and ignores tiny strings', () => {
    const b64 = Buffer.from('s3cr3t-token').toString('base64');
    expect(redact(`a s3cr3t-token b ${b64} c s3cr3t-token`, ['s3cr3t-token'])).toBe(
      'a [redacted] b [redacted] c [redacted]',
    );
    expect(redact('a/b c', ['a/b c', ''])).toBe('[redacted]');
    expect(redact('abc', ['ab'])).toBe('abc');
  });

  it('parses Retry-After in seconds or as an HTTP date', () => {
    expect(parseRetryAfter('2', NOW)).toBe(2000);
    expect(parseRetryAfter(['1.5'], NOW)).toBe(1500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', NOW)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeNull();
    expect(parseRetryAfter(undefined, NOW)).toBeNull();
  });

  it('a 2xx is fine unless its body says it failed or cannot be read', () => {
    expect(errorForResponse(ctx('read'), 200, { success: true, error: false }, {}, NOW)).toBeNull();
    expect(errorForResponse(ctx('read'), 200, { error: true }, {}, NOW)).toBeInstanceOf(GatewayResponseError);
    expect(errorForResponse(ctx('read'), 200, 'text', {}, NOW)).toBeInstanceOf(GatewayResponseError);
    const create = errorForResponse(ctx('create'), 201, 'text', {}, NOW);
    expect(create).toBeInstanceOf(GatewayOutcomeUnknownError);
    expect(create).toMatchObject({ reason: 'unreadable_response', referrer: 'ref-1' });
  });

  it('5xx: unavailable, except on creation where the outcome is unknown', () => {
    expect(errorForResponse(ctx('read'), 503, {}, {}, NOW)).toBeInstanceOf(GatewayUnavailableError);
    expect(errorForResponse(ctx('write'), 500, {}, {}, NOW)).toBeInstanceOf(GatewayUnavailableError);
    expect(errorForResponse(ctx('create'), 502, {}, {}, NOW)).toMatchObject({
      kind: 'outcome_unknown',
      reason: 'server_error',
    });
    expect(errorForResponse(ctx('read'), 418, {}, {}, NOW)).toBeInstanceOf(GatewayResponseError);
  });

  it('transport failures: refused and DNS are not sent; others are, and creation becomes outcome unknown', () => {
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']) {
      const err = errorForTransportFailure(ctx('create'), code, 'x');
      expect(err).toBeInstanceOf(GatewayNetworkError);
      expect(err.sent).toBe(false);
    }
    expect(errorForTransportFailure(ctx('read'), 'ECONNRESET', 'socket hang up')).toMatchObject({
      kind: 'network',
      sent: true,
    });
    expect(errorForTransportFailure(ctx('create'), 'ECONNRESET', 'x')).toMatchObject({
      kind: 'outcome_unknown',
      reason: 'connection',
    });
    expect(errorForTransportFailure(ctx('create'), null, 'x s3cr3t-token').message).not.toContain(
      's3cr3t-token',
    );
    expect(errorForTimeout(ctx('read'), 50)).toBeInstanceOf(GatewayTimeoutError);
    expect(errorForTimeout(ctx('create'), 50)).toMatchObject({ kind: 'outcome_unknown', reason: 'timeout' });
  });

  it('errors serialize to a plain, complete view', () => {
    const err = errorForResponse(
      ctx('write'),
      409,
      { message: 'nope', status_code: 6, code: 'state_conflict' },
      {},
      NOW,
    )!;
    expect(JSON.parse(JSON.stringify(err))).toEqual({
      name: 'GatewayStateConflictError',
      kind: 'state_conflict',
      message: 'op(id=1): state conflict (invoice status 6): nope',
      detail: 'state conflict (invoice status 6): nope',
      operation: 'op',
      invoiceRef: 'id=1',
      httpStatus: 409,
      serviceCode: 'state_conflict',
      sent: true,
      statusCode: 6,
    });
  });

  it('a write that changes an invoice (update) whose answer is lost is an unknown outcome, never a failure', () => {
    const update = ctx('update');
    expect(errorForResponse(update, 503, { code: 'unavailable' }, {}, NOW)).toMatchObject({
      kind: 'outcome_unknown',
      reason: 'server_error',
      sent: true,
    });
    expect(errorForTimeout(update, 50)).toMatchObject({ kind: 'outcome_unknown', reason: 'timeout' });
    expect(errorForTransportFailure(update, 'ECONNRESET', 'socket hang up')).toMatchObject({
      kind: 'outcome_unknown',
      reason: 'connection',
    });
    expect(errorForResponse(update, 200, 'text', {}, NOW)).toMatchObject({ kind: 'outcome_unknown' });
    // Provably never sent: nothing happened, an ordinary network error.
    expect(errorForTransportFailure(update, 'ECONNREFUSED', 'refused')).toBeInstanceOf(GatewayNetworkError);
    // A refusal keeps its meaning.
    expect(errorForResponse(update, 409, {}, {}, NOW)).toMatchObject({ kind: 'state_conflict' });
    // Other writes (webhook resend, authenticate) keep the plain kinds.
    expect(errorForResponse(ctx('write'), 503, {}, {}, NOW)).toBeInstanceOf(GatewayUnavailableError);
  });
});
