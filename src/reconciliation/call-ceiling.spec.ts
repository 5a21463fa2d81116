import { CallCeiling } from './call-ceiling';

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
