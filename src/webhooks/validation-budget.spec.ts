import { MAX_TRACKED_SOURCES, ValidationBudget } from './validation-budget';

describe('ValidationBudget', () => {
  it('gives each source its share and all of them the global one, per window', () => {
    let t = 0;
    const budget = new ValidationBudget(2, 3, 1000, () => t);
    expect(budget.spend('a')).toBeNull();
    expect(budget.spend('a')).toBeNull();
    expect(budget.spend('a')).toMatchObject({ scope: 'source', retryAfterMs: 1000 });
    expect(budget.spend('b')).toBeNull();
    expect(budget.spend('c')).toMatchObject({ scope: 'global' });
    t = 1000;
    expect(budget.spend('a')).toBeNull();
  });

  it('tracks a bounded number of sources', () => {
    let t = 0;
    const budget = new ValidationBudget(1, 1_000_000, 1000, () => t);
    for (let i = 0; i < MAX_TRACKED_SOURCES + 50; i++) budget.spend(`10.0.${i >> 8}.${i & 255}`);
    expect(budget.trackedSources).toBe(MAX_TRACKED_SOURCES);
    t = 5000; // windows over: room again
    budget.spend('new');
    expect(budget.trackedSources).toBe(1);
  });
});
