import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { productDiscountFromEnv, webhookRetryFromEnv } from '../../src/sandbox/main';
import { waitFor } from '../support/wait-for';

const ROOT = join(__dirname, '..', '..');

describe('sandbox: npm run sandbox (src/sandbox/main.ts)', () => {
  it('prints the URL, the sample token with its scopes and a curl line, serves, and stops on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/ts-node/dist/bin.js'), '--transpile-only', 'src/sandbox/main.ts'],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          PORT: '0',
          SANDBOX_WEBHOOK_ATTEMPTS: '1',
          SANDBOX_WEBHOOK_BASE_DELAY_MS: '50',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // ts-node compiles the sandbox first: slow on a busy machine.
      await waitFor(() => out.includes('curl'), 60_000, 'the curl line printed');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      expect(url).toBeDefined();
      expect(out).toContain(
        'Sample token: sandbox-token (scopes: invoice.read, invoice.write, invoice.update, invoice.refund',
      );
      expect(out).toMatch(
        /curl -H 'Authorization: Bearer sandbox-token' http:\/\/127\.0\.0\.1:\d+\/invoices/,
      );
      expect(out).toContain('Webhook retries: 1 attempt(s), first delay 50 ms, factor 2, timeout 5000 ms');
      const res = await fetch(`${url}/invoices`, { headers: { Authorization: 'Bearer sandbox-token' } });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 90_000);
});

describe('sandbox CLI: webhook retries from the environment', () => {
  it('reads attempts, first delay, factor and timeout; leaves unset ones to the defaults', () => {
    expect(webhookRetryFromEnv({})).toEqual({});
    expect(
      webhookRetryFromEnv({
        SANDBOX_WEBHOOK_ATTEMPTS: '2',
        SANDBOX_WEBHOOK_BASE_DELAY_MS: '0',
        SANDBOX_WEBHOOK_FACTOR: '1.5',
        SANDBOX_WEBHOOK_TIMEOUT_MS: '1000',
      }),
    ).toEqual({ attempts: 2, baseDelayMs: 0, factor: 1.5, timeoutMs: 1000 });
  });

  it('refuses a value out of range, naming the variable', () => {
    expect(() => webhookRetryFromEnv({ SANDBOX_WEBHOOK_ATTEMPTS: '0' })).toThrow(/SANDBOX_WEBHOOK_ATTEMPTS/);
    expect(() => webhookRetryFromEnv({ SANDBOX_WEBHOOK_TIMEOUT_MS: 'x' })).toThrow(
      /SANDBOX_WEBHOOK_TIMEOUT_MS/,
    );
  });
});

describe("sandbox CLI: the product discount's rule from the environment (A1)", () => {
  it('reads line or unit, unset being the default; refuses anything else, naming the variable', () => {
    expect(productDiscountFromEnv({})).toBeUndefined();
    expect(productDiscountFromEnv({ SANDBOX_PRODUCT_DISCOUNT: ' unit ' })).toBe('unit');
    expect(productDiscountFromEnv({ SANDBOX_PRODUCT_DISCOUNT: 'line' })).toBe('line');
    expect(() => productDiscountFromEnv({ SANDBOX_PRODUCT_DISCOUNT: 'each' })).toThrow(
      'SANDBOX_PRODUCT_DISCOUNT: must be line or unit, got "each"',
    );
  });
});
