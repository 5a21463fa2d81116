import { AdminAuthThrottle, clientOf } from './admin.guard';

describe('AdminAuthThrottle', () => {
  it('past maxFailures a client is limited until its window ends, then starts again', () => {
    let now = 0;
    const throttle = new AdminAuthThrottle({ maxFailures: 3, windowMs: 10_000 }, () => now);
    for (let i = 1; i <= 3; i++) {
      expect(throttle.fail('a')).toMatchObject({ failures: i, limited: false, log: true });
    }
    expect(throttle.fail('a')).toMatchObject({ failures: 4, limited: true, retryAfterSeconds: 10 });
    expect(throttle.fail('b')).toMatchObject({ failures: 1, limited: false }); // per client
    now = 9_001;
    expect(throttle.fail('a')).toMatchObject({ limited: true, retryAfterSeconds: 1 });
    now = 10_000;
    expect(throttle.fail('a')).toMatchObject({ failures: 1, limited: false });
  });

  it('logs each failure up to the limit, then only at each tenfold count', () => {
    const throttle = new AdminAuthThrottle({ maxFailures: 10 }, () => 0);
    const logged: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const verdict = throttle.fail('flood');
      if (verdict.log) logged.push(verdict.failures);
    }
    expect(logged).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100, 1000, 10_000]);
  });

  it('holds at most maxHeld answers at once; the others go out at once', async () => {
    const throttle = new AdminAuthThrottle({ slowdownMs: 200, maxHeld: 3 }, () => 0);
    const started = Date.now();
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, () => throttle.slowDown().then(() => done.push(Date.now() - started))),
    );
    expect(done.filter((ms) => ms >= 190)).toHaveLength(3);
    expect(done.filter((ms) => ms < 100)).toHaveLength(7);
    // Each held answer gave its place back: the next one is held again.
    const again = Date.now();
    await throttle.slowDown();
    expect(Date.now() - again).toBeGreaterThanOrEqual(190);
  });

  it('stays bounded: past maxClients the oldest window is forgotten', () => {
    const throttle = new AdminAuthThrottle({ maxFailures: 1, maxClients: 100 }, () => 0);
    for (let i = 0; i < 1000; i++) throttle.fail(`client-${i}`);
    expect(throttle.fail('client-0')).toMatchObject({ failures: 1 }); // forgotten
    expect(throttle.fail('client-899')).toMatchObject({ failures: 1 }); // forgotten: only the last 100 are kept
    expect(throttle.fail('client-999')).toMatchObject({ failures: 2, limited: true });
  });

  it('counts an IPv6 client by its /64, an IPv4-mapped address as IPv4', () => {
    expect(clientOf({ ip: '2001:db8:1:2:aaaa::1' })).toBe('2001:db8:1:2::/64');
    expect(clientOf({ ip: '2001:db8:1:2:bbbb:cccc:dddd:eeee' })).toBe('2001:db8:1:2::/64');
    expect(clientOf({ ip: '::1' })).toBe('0:0:0:0::/64');
    expect(clientOf({ ip: '::ffff:203.0.113.9' })).toBe('203.0.113.9');
    expect(clientOf({ socket: { remoteAddress: '198.51.100.1' } })).toBe('198.51.100.1');
  });

  it('refuses options out of range, naming them', () => {
    expect(() => new AdminAuthThrottle({ maxFailures: 0 }, () => 0)).toThrow(
      'admin.authThrottle.maxFailures',
    );
    expect(() => new AdminAuthThrottle({ slowdownMs: -1 }, () => 0)).toThrow('admin.authThrottle.slowdownMs');
    expect(() => new AdminAuthThrottle({ slowdownMs: 0, maxHeld: 0 }, () => 0)).not.toThrow();
  });
});
