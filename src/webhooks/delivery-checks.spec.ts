import { checkToken, type WebhookMerchantTokenSource } from './delivery-checks';
import { resolveWebhooksOptions, type ResolvedWebhooksOptions } from '../options/webhooks.options';

/** The token check with these options and merchant token source (default: the options' token, as the settings'). */
const tokenChecker = (
  options: ResolvedWebhooksOptions,
  source: WebhookMerchantTokenSource = { merchantToken: async () => options.merchantToken },
) => ({
  checkLocally: (headers: Record<string, unknown>) => checkToken(headers, options, source),
});

const line = (merchant: string, service: string) => Buffer.from(`${merchant}:${service}`).toString('base64');

describe('checkToken', () => {
  it('checks a header record such as a framework hands a payment provider, with no call to the service', async () => {
    const tokens = tokenChecker(resolveWebhooksOptions());
    expect(await tokens.checkLocally({ webhook: `default, ${line('', 'svc')}` })).toEqual({
      ok: true,
      webhookId: 'default',
    });
    expect(await tokens.checkLocally({ webhook: 'default, forged-token' })).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(await tokens.checkLocally({})).toMatchObject({ ok: false, status: 401 });
  });

  it('reads the merchant token from its runtime source on every delivery', async () => {
    let current: string | null = 'first';
    const tokens = tokenChecker(resolveWebhooksOptions({ merchantToken: 'from-options' }), {
      merchantToken: async () => current,
    });
    const headers = (merchant: string) => ({ webhook: ['wh', line(merchant, 'svc')] });
    expect((await tokens.checkLocally(headers('first'))).ok).toBe(true);
    expect((await tokens.checkLocally(headers('from-options'))).ok).toBe(false);
    current = 'second';
    expect((await tokens.checkLocally(headers('first'))).ok).toBe(false);
    expect((await tokens.checkLocally(headers('second'))).ok).toBe(true);
    current = null; // none configured: any merchant part
    expect((await tokens.checkLocally(headers('anything'))).ok).toBe(true);
  });

  it('answers 503 when the merchant token cannot be read', async () => {
    const tokens = tokenChecker(resolveWebhooksOptions(), {
      merchantToken: () => Promise.reject(new Error('database down')),
    });
    expect(await tokens.checkLocally({ webhook: ['wh', line('m', 'svc')] })).toMatchObject({
      ok: false,
      status: 503,
    });
  });

  it('refuses an empty merchant part only when told to', async () => {
    const empty = { webhook: ['wh', line('', 'svc')] };
    const lenient = tokenChecker(resolveWebhooksOptions({ merchantToken: 'm' }));
    expect((await lenient.checkLocally(empty)).ok).toBe(true);
    const strict = tokenChecker(
      resolveWebhooksOptions({ merchantToken: 'm', allowEmptyMerchantPart: false }),
    );
    expect(await strict.checkLocally(empty)).toMatchObject({ ok: false, status: 401 });
  });
});

describe('resolveWebhooksOptions', () => {
  it('fills the defaults', () => {
    expect(resolveWebhooksOptions()).toMatchObject({
      path: 'webhooks/invoice-payments',
      bodyLimitBytes: 262144,
      merchantToken: null,
      allowEmptyMerchantPart: true,
    });
  });

  it.each([
    [{ bodyLimitBytes: 0 }, 'webhooks.bodyLimitBytes'],
    [{ path: '' }, 'webhooks.path'],
    [{ path: 'a b' }, 'webhooks.path'],
    [{ inbox: { retryBaseDelayMs: -1 } }, 'webhooks.inbox.retryBaseDelayMs'],
    [{ lookupWindowMs: 1.5 }, 'webhooks.lookupWindowMs'],
  ])('refuses %p naming %s', (options, name) => {
    expect(() => resolveWebhooksOptions(options)).toThrow(name);
  });
});
