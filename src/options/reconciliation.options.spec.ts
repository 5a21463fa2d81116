import { nextCheckAt, resolveReconciliationOptions, windowEnd } from './reconciliation.options';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const created = new Date('2026-11-20T12:00:00.000Z');
const at = (ms: number) => new Date(created.getTime() + ms);
const age = (next: Date | null) => (next ? next.getTime() - created.getTime() : null);

describe('nextCheckAt (the reconciliation schedule)', () => {
  const o = resolveReconciliationOptions();
  const due = '2026-11-23';

  it('backs off with age: 1 min, 5 min, 15 min, 1 h, then hourly until a day old, then daily', () => {
    const record = { createdAt: created, dueDate: due };
    const ages: number[] = [];
    let now = created;
    for (let i = 0; i < 40; i++) {
      const next = nextCheckAt(record, now, o);
      if (!next) break;
      ages.push(age(next) as number);
      now = next;
    }
    expect(ages.slice(0, 6)).toEqual([MIN, 5 * MIN, 15 * MIN, HOUR, 2 * HOUR, 3 * HOUR]);
    expect(ages).toContain(24 * HOUR);
    expect(ages).toContain(2 * DAY);
    // Strictly increasing, every step in the future of the last.
    for (let i = 1; i < ages.length; i++) expect(ages[i]).toBeGreaterThan(ages[i - 1]);
  });

  it('answers the first point after now, whatever the gap (a store down for hours)', () => {
    const record = { createdAt: created, dueDate: due };
    expect(age(nextCheckAt(record, at(3 * MIN), o))).toBe(5 * MIN);
    expect(age(nextCheckAt(record, at(5 * HOUR + 1), o))).toBe(6 * HOUR);
    expect(age(nextCheckAt(record, at(30 * HOUR), o))).toBe(2 * DAY);
  });

  it('stops at the end of its window: due date (São Paulo) plus margin, at least minimumWindowMs after creation', () => {
    const short = { ...o, minimumWindowMs: 0 };
    const record = { createdAt: created, dueDate: due };
    const end = windowEnd(record, short);
    expect(new Date(end).toISOString()).toBe('2026-11-27T02:59:59.999Z'); // 23 Nov 23:59:59.999 -03:00 + 3 days
    expect(nextCheckAt(record, new Date(end - HOUR), short)?.getTime()).toBe(end); // one last look at the end
    expect(nextCheckAt(record, new Date(end), short)).toBeNull();
    // No due date (card): the minimum window.
    expect(windowEnd({ createdAt: created, dueDate: null }, o)).toBe(created.getTime() + 30 * DAY);
    expect(nextCheckAt({ createdAt: created, dueDate: null }, at(31 * DAY), o)).toBeNull();
  });

  it('checks its options, naming the one at fault', () => {
    expect(() => resolveReconciliationOptions({ maxCallsPerMinute: 0 })).toThrow(/maxCallsPerMinute/);
    expect(() => resolveReconciliationOptions({ stepsMs: [60_000, -1] })).toThrow(/stepsMs/);
    expect(resolveReconciliationOptions({ intervalMs: 0 }).intervalMs).toBe(0);
    expect(resolveReconciliationOptions({ stepsMs: [300_000, 60_000] }).stepsMs).toEqual([60_000, 300_000]);
  });
});
