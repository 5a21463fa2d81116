import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TOKEN } from '../../src/sandbox/index';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { waitFor } from '../support/wait-for';
import { demoDatabaseOf, openDemoDatabase } from './support';

const ROOT = join(__dirname, '..', '..');

/** Starts the demo as `npm start` does (ts-node, transpile only) with `args`, on a free port; output gathered. */
function startDemo(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
      '--transpile-only',
      'examples/demo-store/main.ts',
      ...args,
      '--port',
      '0',
    ],
    { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Resolves with the exit code once `child` has exited. */
function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
}

/** Runs `npm start -- --once`. */
async function runOnce(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const { child, output } = startDemo(['--once'], env);
  const code = await exited(child);
  return { code, output: output() };
}

/** The demo's environment for `db`, its files in `dataDir`. */
function demoEnv(db: TestDatabase, dataDir: string): NodeJS.ProcessEnv {
  const database = demoDatabaseOf(db);
  const env: NodeJS.ProcessEnv = { DEMO_DATA_DIR: dataDir, DATABASE_URL: '', PORT: '' };
  if (database.type === 'postgres') env.DATABASE_URL = database.url;
  return env;
}

describeEachDatabase('npm start -- --once', (kind) => {
  let db: TestDatabase;
  let dataDir: string;

  beforeAll(async () => {
    db = await openDemoDatabase(kind);
    dataDir = mkdtempSync(join(tmpdir(), 'demo-data-'));
  });
  afterAll(async () => {
    await db?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the timeline, exits 0, and never prints a secret', async () => {
    const { code, output } = await runOnce(demoEnv(db, dataDir));
    expect(output).toContain('Walkthrough complete: 15 steps passed.');
    expect(code).toBe(0);
    expect(output).toContain(kind === 'postgres' ? 'Database: PostgreSQL' : `Database: SQLite ${dataDir}`);
    expect(output).toMatch(/PIX copy-and-paste: 000201\S+/);
    expect(output).toMatch(/Tracking code QB\d{9}BR posted to the service/);
    for (const secret of [
      readFileSync(join(dataDir, 'admin-key'), 'utf8').trim(),
      readFileSync(join(dataDir, 'encryption-key'), 'utf8').trim(),
      DEFAULT_TOKEN,
    ]) {
      expect(output).not.toContain(secret);
    }
  }, 120_000);
});

describe('npm start', () => {
  let db: TestDatabase;
  let dataDir: string;
  let demo: ReturnType<typeof startDemo> | undefined;

  beforeAll(async () => {
    db = await openDemoDatabase('sqlite');
    dataDir = mkdtempSync(join(tmpdir(), 'demo-data-'));
  });
  afterAll(async () => {
    if (demo && demo.child.exitCode === null) {
      demo.child.kill('SIGKILL');
      await exited(demo.child);
    }
    await db?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints the shop page's URL, which serves the page with <invoice-payment>; SIGTERM stops it", async () => {
    const running = (demo = startDemo([], demoEnv(db, dataDir)));
    // The URL list ends with the payment service's row; the shop page's row is in it.
    await waitFor(() => /^ +Payment service *: /m.test(running.output()), 90_000, 'the URL list', 100);
    const shop = /^ +Shop page *: (\S+) \(place an order and pay it/m.exec(running.output());
    expect(shop).not.toBeNull();
    const url = shop![1];
    expect(running.output()).toContain(`Shop page (order and pay in the browser): ${url}\n`);

    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/shop/invoice-payment.js"></script>');
    expect(html).toContain('<script type="module" src="/shop/app.js"></script>');
    expect(html).not.toContain('{{');
    const component = await fetch(new URL('/shop/invoice-payment.js', url));
    expect(component.status).toBe(200);
    expect(component.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await component.text();
    expect(script).toContain('customElements.define(');
    expect(script).toContain('"invoice-payment"');
    // The page's own script puts the element on it, for the order placed.
    expect(await (await fetch(new URL('/shop/app.js', url))).text()).toContain(
      "document.createElement('invoice-payment')",
    );

    running.child.kill('SIGTERM');
    expect(await exited(running.child)).toBe(0);
  }, 120_000);
});
