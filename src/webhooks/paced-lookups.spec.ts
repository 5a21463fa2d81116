import { LOOKUP_BURST, LookupPace } from './paced-lookups';

describe('LookupPace', () => {
  it('lets an invoice start a burst of lookups, then one a window, however often it is asked', () => {
    let t = 10_000;
    const pace = new LookupPace(1000, 100, () => t);
    for (let i = 0; i < LOOKUP_BURST; i++) expect(pace.take('A').waitMs).toBe(0);
    expect(pace.take('A')).toEqual({ waitMs: 1000, scope: 'invoice' });
    let started = 0;
    for (let ms = 0; ms < 5000; ms += 10) {
      t += 10;
      if (pace.take('A').waitMs === 0) started++;
    }
    expect(started).toBe(5); // one a window over five seconds
    expect(pace.take('B').waitMs).toBe(0); // other invoices have their own
  });

  it('starts at most `perSecond` lookups a second in all, and says when the next second starts', () => {
    let t = 0;
    const pace = new LookupPace(1000, 2, () => t);
    expect([pace.take('A').waitMs, pace.take('B').waitMs]).toEqual([0, 0]);
    t += 300;
    expect(pace.take('C')).toEqual({ waitMs: 700, scope: 'all' });
    t += 700;
    expect(pace.take('C').waitMs).toBe(0);
  });
});
