import { resolveHealthOptions } from '../../src/options/health.options';

describe('health options: the defaults report a fault within 45 s', () => {
  it('a quiet service is asked within a check of probeIntervalMs, and given up on probeTimeoutMs later', () => {
    // The worst case of health.indicator.ts: the service's last answer just after a round, then silence; the round
    // that finds it silent for longer than probeIntervalMs asks, and the answer is given up at the probe's deadline.
    const o = resolveHealthOptions();
    expect(o.checkIntervalMs + o.probeIntervalMs + o.probeTimeoutMs).toBeLessThanOrEqual(45_000);
  });
});
