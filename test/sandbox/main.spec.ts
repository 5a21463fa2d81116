import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('sandbox: npm run sandbox (src/sandbox/main.ts)', () => {
  it('prints the URL, the sample token with its scopes and a curl line, serves, and stops on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/ts-node/dist/bin.js'), '--transpile-only', 'src/sandbox/main.ts'],
      {
        cwd: ROOT,
        env: { ...process.env, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const until = Date.now() + 20000;
      while (!out.includes('curl') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      expect(url).toBeDefined();
      expect(out).toContain(
        'Sample token: sandbox-token (scopes: invoice.read, invoice.write, invoice.update, invoice.refund',
      );
      expect(out).toMatch(
        /curl -H 'Authorization: Bearer sandbox-token' http:\/\/127\.0\.0\.1:\d+\/invoices/,
      );
      const res = await fetch(`${url}/invoices`, { headers: { Authorization: 'Bearer sandbox-token' } });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
