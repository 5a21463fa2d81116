import fc from 'fast-check';
import { retryDelayMs } from './backoff';

const options = { initialDelayMs: 1000, maxDelayMs: 60_000, factor: 2, jitter: 0.5 };

describe('retryDelayMs', () => {
  it('doubles from the initial delay without jitter, and stops growing at the cap', () => {
    const noJitter = { ...options, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n, noJitter))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000,
    ]);
    expect(retryDelayMs(10_000, noJitter)).toBe(60_000);
  });

  it('takes at most the jitter share off the delay', () => {
    expect(retryDelayMs(3, options, () => 0)).toBe(4000);
    expect(retryDelayMs(3, options, () => 0.999999)).toBe(2000);
    expect(retryDelayMs(3, { ...options, jitter: 1 }, () => 0.5)).toBe(2000);
  });

  it('stays within [cap * (1 - jitter), cap] for any attempt and any random draw', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (attempt, draw, jitter) => {
          const o = { ...options, jitter };
          const base = Math.min(o.maxDelayMs, o.initialDelayMs * Math.pow(o.factor, attempt - 1));
          const delay = retryDelayMs(attempt, o, () => draw);
          expect(Number.isInteger(delay)).toBe(true);
          expect(delay).toBeLessThanOrEqual(Math.min(base, o.maxDelayMs));
          expect(delay).toBeGreaterThanOrEqual(Math.floor(base * (1 - jitter)));
        },
      ),
    );
  });

  it('never shrinks as attempts grow (without jitter)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), (attempt) => {
        const o = { ...options, jitter: 0 };
        expect(retryDelayMs(attempt + 1, o)).toBeGreaterThanOrEqual(retryDelayMs(attempt, o));
      }),
    );
  });
});
