import { LOOKUP_BURST, LookupPace } from './lookup-pace';

describe('LookupPace', () => {
  it('lets an invoice start a burst of lookups, then one a window, however often it is asked', () => {
    let t = 10_000;
    const pace = new LookupPace(1000, 100, () => t);
    for (let i = 0; i < LOOKUP_BURST; i++) expect(pace.take('A')).toBe(0);
    expect(pace.take('A')).toBe(1000);
    let started = 0;
    for (let ms = 0; ms < 5000; ms += 10) {
      t += 10;
      if (pace.take('A') === 0) started++;
    }
    expect(started).toBe(5); // one a window over five seconds
    expect(pace.take('B')).toBe(0); // other invoices have their own
  });

  it('starts at most `perSecond` lookups a second in all, and says when the next second starts', () => {
    let t = 0;
    const pace = new LookupPace(1000, 2, () => t);
    expect([pace.take('A'), pace.take('B')]).toEqual([0, 0]);
    t += 300;
    expect(pace.take('C')).toBe(700);
    t += 700;
    expect(pace.take('C')).toBe(0);
  });
});
