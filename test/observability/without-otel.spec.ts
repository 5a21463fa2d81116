import { resolveHealthOptions } from '../../src/options/health.options';
import { systemClock } from '../../src/domain/clock';
import { count, lastCallTo, serviceCallObserver, traced } from '../../src/core/otel';

// The host did not install the optional peer: requiring it fails, as it does in a store without it.
jest.mock('@opentelemetry/api', () => {
  throw new Error("Cannot find module '@opentelemetry/api'");
});

describe('signals without @opentelemetry/api installed', () => {
  it('runs the work, keeps the outcome for the health check and records nothing', async () => {
    expect(() => jest.requireActual('@opentelemetry/api')).not.toThrow();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the guarded require is what is tested
    expect(() => require('@opentelemetry/api')).toThrow(/Cannot find module/);
    const call = { baseUrl: 'http://svc.test', operation: 'listInvoices' };
    const observer = serviceCallObserver(systemClock);
    await expect(observer.observe(call, async () => 42)).resolves.toBe(42);
    expect(lastCallTo('http://svc.test')).toMatchObject({ outcome: 'ok' });
    const failure = Object.assign(new Error('down'), { kind: 'network' });
    await expect(observer.observe(call, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(lastCallTo('http://svc.test')).toMatchObject({ outcome: 'network' });
    await expect(traced('x', {}, async () => 'done')).resolves.toBe('done');
    expect(() => count('alerts', { 'invoice_payments.alert.kind': 'tracking_failed' })).not.toThrow();
  });
});

describe('health options', () => {
  it('fills in the defaults and refuses a bad value, naming it', () => {
    expect(resolveHealthOptions()).toEqual({
      checkIntervalMs: 5_000,
      probeIntervalMs: 15_000,
      probeTimeoutMs: 10_000,
      maxInboxBacklog: 1000,
      maxInboxAgeMs: 600_000,
      maxDeadLetters: null,
      maxTrackingLagMs: 3_600_000,
      maxPortDelayMs: 600_000,
    });
    expect(resolveHealthOptions({ maxDeadLetters: 0 }).maxDeadLetters).toBe(0);
    expect(() => resolveHealthOptions({ probeIntervalMs: 0 })).toThrow('health.probeIntervalMs');
    expect(() => resolveHealthOptions({ probeTimeoutMs: 5 })).toThrow('health.probeTimeoutMs');
    expect(() => resolveHealthOptions({ maxDeadLetters: -1 })).toThrow('health.maxDeadLetters');
  });
});
