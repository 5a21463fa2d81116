import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TOKEN } from '../../src/sandbox/index';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { demoDatabaseOf, openDemoDatabase } from './support';

const ROOT = join(__dirname, '..', '..');

/** Runs `npm start -- --once` as `npm start` does (ts-node, transpile only), on a free port. */
function runOnce(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'),
        '--transpile-only',
        'examples/demo-store/main.ts',
        '--once',
        '--port',
        '0',
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
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
    const database = demoDatabaseOf(db);
    const env: NodeJS.ProcessEnv = { DEMO_DATA_DIR: dataDir, DATABASE_URL: '', PORT: '' };
    if (database.type === 'postgres') env.DATABASE_URL = database.url;
    const { code, output } = await runOnce(env);
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
