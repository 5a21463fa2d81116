import { nextCheckAt, resolveReconciliationOptions, windowEnd } from './reconciliation.options';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const created = new Date('2026-11-20T12:00:00.000Z');
const at = (ms: number) => new Date(created.getTime() + ms);
const SP = 'America/Sao_Paulo';
const age = (next: Date | null) => (next ? next.getTime() - created.getTime() : null);

describe('nextCheckAt (the reconciliation schedule)', () => {
  const o = resolveReconciliationOptions();
  const due = '2026-11-23';

  it('backs off with age: 1 min, 5 min, 15 min, 1 h, then hourly until a day old, then daily', () => {
    const record = { createdAt: created, dueDate: due };
    const ages: number[] = [];
    let now = created;
    for (let i = 0; i < 40; i++) {
      const next = nextCheckAt(record, now, o, SP);
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
    expect(age(nextCheckAt(record, at(3 * MIN), o, SP))).toBe(5 * MIN);
    expect(age(nextCheckAt(record, at(5 * HOUR + 1), o, SP))).toBe(6 * HOUR);
    expect(age(nextCheckAt(record, at(30 * HOUR), o, SP))).toBe(2 * DAY);
  });

  it("stops at the end of its window: due day's end (service's zone) plus margin, at least minimumWindowMs after creation", () => {
    const short = { ...o, minimumWindowMs: 0 };
    const record = { createdAt: created, dueDate: due };
    const end = windowEnd(record, short, SP);
    expect(new Date(end).toISOString()).toBe('2026-11-27T03:00:00.000Z'); // 24 Nov 00:00 -03:00 + 3 days
    expect(nextCheckAt(record, new Date(end - HOUR), short, SP)?.getTime()).toBe(end); // one last look at the end
    expect(nextCheckAt(record, new Date(end), short, SP)).toBeNull();
    // No due date (card): the minimum window.
    expect(windowEnd({ createdAt: created, dueDate: null }, o, SP)).toBe(created.getTime() + 30 * DAY);
    expect(nextCheckAt({ createdAt: created, dueDate: null }, at(31 * DAY), o, SP)).toBeNull();
  });

  it('counts the window of a record put back on the schedule from the put-back, not from its creation', () => {
    const putBack = at(40 * DAY); // a paid slip refunded long after its window ended
    const record = { createdAt: created, dueDate: due, watchedFrom: putBack };
    expect(windowEnd(record, o, SP)).toBe(putBack.getTime() + 30 * DAY);
    // Checked as a new one from then: the steps, then hourly, then daily, until the window's end.
    expect(nextCheckAt(record, putBack, o, SP)?.getTime()).toBe(putBack.getTime() + MIN);
    expect(nextCheckAt(record, new Date(putBack.getTime() + 2 * DAY), o, SP)?.getTime()).toBe(
      putBack.getTime() + 3 * DAY,
    );
    expect(nextCheckAt(record, new Date(putBack.getTime() + 30 * DAY), o, SP)).toBeNull();
    // Never put back: from its creation, as before.
    expect(nextCheckAt({ ...record, watchedFrom: null }, putBack, o, SP)).toBeNull();
  });

  it('ends the window where the service counts its days, not at a fixed offset (a service in Tokyo, A2)', () => {
    const short = { ...o, minimumWindowMs: 0 };
    const record = { createdAt: created, dueDate: due };
    // 23 Nov ends at 24 Nov 00:00 +09:00, 15:00 UTC on the 23rd; plus 3 days.
    expect(new Date(windowEnd(record, short, 'Asia/Tokyo')).toISOString()).toBe('2026-11-26T15:00:00.000Z');
  });

  it('checks its options, naming the one at fault', () => {
    expect(() => resolveReconciliationOptions({ maxCallsPerMinute: 0 })).toThrow(/maxCallsPerMinute/);
    expect(() => resolveReconciliationOptions({ stepsMs: [60_000, -1] })).toThrow(/stepsMs/);
    expect(resolveReconciliationOptions({ intervalMs: 0 }).intervalMs).toBe(0);
    expect(resolveReconciliationOptions({ stepsMs: [300_000, 60_000] }).stepsMs).toEqual([60_000, 300_000]);
  });
});
