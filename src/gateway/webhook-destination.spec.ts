import { assertResendAllowed, isLoopbackBaseUrl, isPrivateAddress } from './webhook-destination';

describe('resend destination guards', () => {
  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
    ]) {
      expect(isPrivateAddress(a)).toBe(true);
    }
    for (const a of ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', '::ffff:10.0.0.1', 'not-an-ip']) {
      expect(isPrivateAddress(a)).toBe(true);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:2800:220:1::1', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(a)).toBe(false);
    }
  });

  it('recognises a sandbox on this machine', () => {
    expect(isLoopbackBaseUrl('http://127.0.0.1:4000')).toBe(true);
    expect(isLoopbackBaseUrl('http://localhost:4000/v3')).toBe(true);
    expect(isLoopbackBaseUrl('http://[::1]:4000')).toBe(true);
    expect(isLoopbackBaseUrl('https://api.example.com')).toBe(false);
    expect(isLoopbackBaseUrl('http://10.0.0.5:4000')).toBe(false);
  });

  it('allows any destination against a local sandbox, none in production', async () => {
    const local = { baseUrl: 'http://127.0.0.1:1', accessToken: 't', mode: 'sandbox' as const };
    await expect(
      assertResendAllowed(local, 'http://10.0.0.1/x', { operation: 'resendWebhook' }),
    ).resolves.toBeUndefined();
    await expect(
      assertResendAllowed({ ...local, mode: 'production' }, 'https://example.com/x', {
        operation: 'resendWebhook',
      }),
    ).rejects.toMatchObject({ kind: 'mode', sent: false });
  });
});
