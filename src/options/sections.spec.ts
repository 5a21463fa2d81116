import { resolveNotificationsOptions } from '../core/status-dispatcher.service';
import { checkOptions } from './resolve';
import { resolveWebhooksOptions } from './webhooks.options';

describe('resolveNotificationsOptions', () => {
  it('fills in the defaults', () => {
    expect(resolveNotificationsOptions()).toEqual({
      pollIntervalMs: 5000,
      retryBaseDelayMs: 1000,
      retryMaxDelayMs: 300_000,
      leaseMs: 60_000,
      pollOnStart: true,
    });
  });

  it('keeps 0 as "no polling"', () => {
    expect(resolveNotificationsOptions({ pollIntervalMs: 0 }).pollIntervalMs).toBe(0);
  });

  it.each([
    [{ pollIntervalMs: -1 }, 'pollIntervalMs'],
    [{ retryBaseDelayMs: 0 }, 'retryBaseDelayMs'],
    [{ retryMaxDelayMs: 1.5 }, 'retryMaxDelayMs'],
    [{ leaseMs: Number.NaN }, 'leaseMs'],
  ])('refuses %j, naming the option', (options, name) => {
    expect(() => resolveNotificationsOptions(options)).toThrow(`notifications.${name} must be`);
  });
});

describe('resolveWebhooksOptions', () => {
  it("refuses a merchant token no delivery could match: a ':' (the token's separator) or white space", () => {
    for (const merchantToken of ['minha:senha', 'minha senha', 'senha\n']) {
      expect(() => resolveWebhooksOptions({ merchantToken })).toThrow('webhooks.merchantToken must not hold');
    }
    expect(resolveWebhooksOptions({ merchantToken: 'shop-secret' }).merchantToken).toBe('shop-secret');
    expect(resolveWebhooksOptions({ merchantToken: '' }).merchantToken).toBeNull();
  });
});

describe('checkOptions: the wire profile given in the options', () => {
  const gateway = { baseUrl: 'http://127.0.0.1:9', accessToken: 't', mode: 'sandbox' as const };
  const withProfile = (profile: object) => () =>
    checkOptions({ gateway: { ...gateway, profile }, orderPort: class {} } as never);

  it("refuses a product discount's rule other than line or unit, naming it", () => {
    expect(withProfile({ productDiscount: 'unit' })).not.toThrow();
    expect(withProfile({ productDiscount: 'units' })).toThrow(
      'InvoicePaymentsModule: gateway.profile.productDiscount "units" must be one of line, unit',
    );
  });

  it('refuses a time zone that does not exist, naming it', () => {
    expect(withProfile({ timeZone: 'Asia/Tokyo' })).not.toThrow();
    expect(withProfile({ timeZone: 'America/Sao_Paul' })).toThrow('gateway.profile.timeZone');
  });
});
