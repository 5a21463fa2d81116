import { resolveWebhooksOptions } from './constants';
import { readWebhookHeaderLines, webhookLinesOf, WebhookTokenService } from './webhook-token.service';
import type { WebhookTokenValidator } from './types';

const line = (merchant: string, service: string) => Buffer.from(`${merchant}:${service}`).toString('base64');

/** A stand-in for the service's validation operation that counts its calls. */
class CountingValidator implements WebhookTokenValidator {
  calls = 0;
  constructor(private readonly valid: Set<string>) {}
  async validateWebhookToken(token: string): Promise<boolean> {
    this.calls++;
    return this.valid.has(token);
  }
}

describe('readWebhookHeaderLines', () => {
  it('tells the token line from the id line in either order, and splits at the first colon', () => {
    for (const lines of [
      ['wh_1', line('m', 'svc:with:colons')],
      [line('m', 'svc:with:colons'), 'wh_1'],
      [`wh_1, ${line('m', 'svc:with:colons')}`],
    ]) {
      expect(readWebhookHeaderLines(lines)).toEqual({
        webhookId: 'wh_1',
        token: { merchant: 'm', service: 'svc:with:colons' },
        problem: null,
      });
    }
  });

  it('does not take a base64-looking webhook id for the token', () => {
    // "abcd" is valid base64 but decodes to bytes without a colon.
    expect(readWebhookHeaderLines(['abcd', line('', 's')]).webhookId).toBe('abcd');
  });

  it('says why there is no usable token', () => {
    expect(readWebhookHeaderLines(['wh_1']).problem).toBe('no Webhook header line carries a token');
    expect(readWebhookHeaderLines([line('a', 's1'), line('b', 's2')]).problem).toBe(
      'several different Webhook tokens',
    );
    expect(readWebhookHeaderLines([line('m', '')]).problem).toBe('the token has an empty service part');
  });
});

describe('webhookLinesOf', () => {
  it('reads a plain header record in any letter case, joined or as an array', () => {
    expect(webhookLinesOf({ webhook: 'wh_1, abc=' })).toEqual(['wh_1, abc=']);
    expect(webhookLinesOf({ Webhook: ['wh_1', 'abc='], other: 'x' })).toEqual(['wh_1', 'abc=']);
  });
});

describe('WebhookTokenService', () => {
  it('authenticates a header record such as a framework hands a payment provider', async () => {
    const validator = new CountingValidator(new Set(['svc']));
    const tokens = new WebhookTokenService(resolveWebhooksOptions(), validator);
    expect(await tokens.authenticate({ webhook: `default, ${line('', 'svc')}` })).toEqual({
      ok: true,
      webhookId: 'default',
    });
    expect(await tokens.authenticate({ webhook: `default, ${line('', 'forged')}` })).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('reads the merchant token from its runtime source on every delivery', async () => {
    let current: string | null = 'first';
    const tokens = new WebhookTokenService(
      resolveWebhooksOptions({ merchantToken: 'from-options' }),
      new CountingValidator(new Set(['svc'])),
      { merchantToken: async () => current },
    );
    const headers = (merchant: string) => ({ webhook: ['wh', line(merchant, 'svc')] });
    expect((await tokens.authenticate(headers('first'))).ok).toBe(true);
    expect((await tokens.authenticate(headers('from-options'))).ok).toBe(false);
    current = 'second';
    expect((await tokens.authenticate(headers('first'))).ok).toBe(false);
    expect((await tokens.authenticate(headers('second'))).ok).toBe(true);
    current = null; // none configured: any merchant part
    expect((await tokens.authenticate(headers('anything'))).ok).toBe(true);
  });

  it('answers 503 when the merchant token cannot be read, without asking the service', async () => {
    const validator = new CountingValidator(new Set(['svc']));
    const tokens = new WebhookTokenService(resolveWebhooksOptions(), validator, {
      merchantToken: () => Promise.reject(new Error('database down')),
    });
    expect(await tokens.authenticate({ webhook: ['wh', line('m', 'svc')] })).toMatchObject({
      ok: false,
      status: 503,
    });
    expect(validator.calls).toBe(0);
  });

  it('asks the service once per token while the verdict is cached, refusals included', async () => {
    const validator = new CountingValidator(new Set(['svc']));
    const tokens = new WebhookTokenService(resolveWebhooksOptions(), validator);
    await Promise.all([1, 2, 3].map(() => tokens.isValidServiceToken('svc')));
    await tokens.isValidServiceToken('svc');
    expect(validator.calls).toBe(1);
    expect(await tokens.isValidServiceToken('nope')).toBe(false);
    expect(await tokens.isValidServiceToken('nope')).toBe(false);
    expect(validator.calls).toBe(2);
  });

  it('does not cache when the TTLs are 0', async () => {
    const validator = new CountingValidator(new Set(['svc']));
    const tokens = new WebhookTokenService(
      resolveWebhooksOptions({ tokenCacheTtlMs: 0, rejectedTokenCacheTtlMs: 0 }),
      validator,
    );
    await tokens.isValidServiceToken('svc');
    await tokens.isValidServiceToken('svc');
    expect(validator.calls).toBe(2);
  });
});

describe('resolveWebhooksOptions', () => {
  it('fills the defaults', () => {
    expect(resolveWebhooksOptions()).toMatchObject({
      path: 'webhooks/invoice-payments',
      bodyLimitBytes: 262144,
      installBodyReader: true,
      merchantToken: null,
      allowEmptyMerchantPart: true,
      sweep: { intervalMs: 0, pageSize: 100, lookbackDays: 30 },
    });
  });

  it.each([
    [{ bodyLimitBytes: 0 }, 'webhooks.bodyLimitBytes'],
    [{ path: '' }, 'webhooks.path'],
    [{ path: 'a b' }, 'webhooks.path'],
    [{ sweep: { pageSize: 101 } }, 'webhooks.sweep.pageSize'],
    [{ inbox: { retryBaseDelayMs: -1 } }, 'webhooks.inbox.retryBaseDelayMs'],
    [{ tokenCacheTtlMs: 1.5 }, 'webhooks.tokenCacheTtlMs'],
  ])('refuses %p naming %s', (options, name) => {
    expect(() => resolveWebhooksOptions(options)).toThrow(name);
  });
});

describe('WebhookTokenService deadline', () => {
  it('answers 503 when the service is slower than validationTimeoutMs, and still caches its late verdict', async () => {
    let release!: (valid: boolean) => void;
    let calls = 0;
    const slow: WebhookTokenValidator = {
      validateWebhookToken: () => {
        calls++;
        return new Promise<boolean>((resolve) => (release = resolve));
      },
    };
    const tokens = new WebhookTokenService(resolveWebhooksOptions({ validationTimeoutMs: 20 }), slow);
    const headers = { webhook: ['wh', line('', 'svc')] };
    expect(await tokens.authenticate(headers)).toMatchObject({ ok: false, status: 503 });
    release(true);
    await new Promise((r) => setImmediate(r));
    expect(await tokens.authenticate(headers)).toEqual({ ok: true, webhookId: 'wh' });
    expect(calls).toBe(1);
  });
});

describe('WebhookTokenService: the budget cannot be starved', () => {
  const options = resolveWebhooksOptions({
    tokenCacheTtlMs: 0, // every delivery validates again
    newTokenValidationsPerWindow: 30,
    newTokenValidationsPerSource: 5,
  });
  const from = (address: string, lines: string) => ({
    headers: {},
    headersDistinct: { webhook: lines.split(', ') },
    socket: { remoteAddress: address },
  });

  it("one source's flood of forged tokens does not block the service's confirmed token, nor another source", async () => {
    const validator = new CountingValidator(new Set(['real']));
    const tokens = new WebhookTokenService(options, validator);
    const real = () => tokens.authenticate(from('198.51.100.1', `wh, ${line('', 'real')}`) as never);
    expect((await real()).ok).toBe(true);
    const flood = [];
    for (let i = 0; i < 200; i++)
      flood.push(await tokens.authenticate(from('203.0.113.9', `wh, ${line('', `f${i}`)}`) as never));
    expect(flood.filter((r) => !r.ok && r.status === 503)).toHaveLength(195);
    expect(flood.find((r) => !r.ok && r.status === 503)).toMatchObject({
      retryAfterSeconds: expect.any(Number),
    });
    expect(validator.calls).toBe(1 + 5);
    // The confirmed token is validated again without the budget; a new token from elsewhere still gets its share.
    expect((await real()).ok).toBe(true);
    expect(await tokens.authenticate(from('192.0.2.7', `wh, ${line('', 'other')}`) as never)).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('the configured merchant token spends no budget, even from a flooding source', async () => {
    const validator = new CountingValidator(new Set(['new-real']));
    const tokens = new WebhookTokenService({ ...options, merchantToken: 'm-secret' }, validator);
    for (let i = 0; i < 10; i++)
      await tokens.authenticate(from('203.0.113.9', `wh, ${line('', `f${i}`)}`) as never);
    expect(
      await tokens.authenticate(from('203.0.113.9', `wh, ${line('m-secret', 'new-real')}`) as never),
    ).toEqual({
      ok: true,
      webhookId: 'wh',
    });
  });
});
