import { CallCeiling } from './poller';

describe('CallCeiling', () => {
  it('allows perMinute calls a minute, then none until the window passes', () => {
    let t = 1_000_000;
    const ceiling = new CallCeiling(3, () => t);
    expect([ceiling.take(), ceiling.take(), ceiling.take(), ceiling.take()]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(ceiling.remaining()).toBe(0);
    t += 59_999;
    expect(ceiling.take()).toBe(false);
    t += 1;
    expect(ceiling.remaining()).toBe(3);
    expect(ceiling.take()).toBe(true);
  });
});

describe('CallCeiling over a window of one second', () => {
  it('allows `limit` calls a second and says when the next window starts', () => {
    let t = 5_000;
    const ceiling = new CallCeiling(2, () => t, 1000);
    expect([ceiling.take(), ceiling.take(), ceiling.take()]).toEqual([true, true, false]);
    t += 400;
    expect(ceiling.msUntilNextWindow()).toBe(600);
    t += 600;
    expect(ceiling.take()).toBe(true);
  });
});
