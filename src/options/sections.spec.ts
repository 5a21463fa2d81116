import { resolveNotificationsOptions } from '../core/status-dispatcher.service';

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
