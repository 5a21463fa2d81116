import { AdminAuthThrottle, clientOf } from './auth-throttle';

describe('AdminAuthThrottle', () => {
  it('refuses a client that used up its failures until its window ends, then lets it try again', () => {
    let now = 0;
    const throttle = new AdminAuthThrottle({ maxFailures: 3, windowMs: 10_000 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(throttle.check('a')).toEqual({ allowed: true });
      throttle.fail('a');
    }
    expect(throttle.check('a')).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(throttle.check('b')).toEqual({ allowed: true }); // per client
    now = 9_001;
    expect(throttle.check('a')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    now = 10_000;
    expect(throttle.check('a')).toEqual({ allowed: true });
    expect(throttle.fail('a').failures).toBe(1);
  });

  it('stays bounded: past maxClients the oldest window is forgotten', () => {
    const throttle = new AdminAuthThrottle({ maxFailures: 1, maxClients: 100 }, () => 0);
    for (let i = 0; i < 1000; i++) throttle.fail(`client-${i}`);
    expect(throttle.check('client-0')).toEqual({ allowed: true }); // forgotten
    expect(throttle.check('client-999')).toMatchObject({ allowed: false });
    expect((throttle as unknown as { windows: Map<string, unknown> }).windows.size).toBe(100);
  });

  it('counts an IPv6 client by its /64, an IPv4-mapped address as IPv4', () => {
    expect(clientOf({ ip: '2001:db8:1:2:aaaa::1' })).toBe('2001:db8:1:2::/64');
    expect(clientOf({ ip: '2001:db8:1:2:bbbb:cccc:dddd:eeee' })).toBe('2001:db8:1:2::/64');
    expect(clientOf({ ip: '::1' })).toBe('0:0:0:0::/64');
    expect(clientOf({ ip: '::ffff:203.0.113.9' })).toBe('203.0.113.9');
    expect(clientOf({ socket: { remoteAddress: '198.51.100.1' } })).toBe('198.51.100.1');
  });

  it('refuses options that are not positive integers', () => {
    expect(() => new AdminAuthThrottle({ maxFailures: 0 })).toThrow('admin.authThrottle.maxFailures');
  });
});
