import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asAdmin } from '../global-setup';

const HOST_DIR = join(__dirname, '..', '..');
/** Where `medusa build` writes the app; `medusa start` runs there (it finds node_modules one level up). */
const SERVER_DIR = join(HOST_DIR, '.medusa', 'server');
const MEDUSA = join(HOST_DIR, 'node_modules', '.bin', 'medusa');
export const RESULTS = join(HOST_DIR, 'test-results');
export const ADMIN = { email: 'admin@example.com', password: 'medusa-admin-secret' };

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls until `check` holds (a guard against hanging, not a speed assertion). */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * A real Medusa app: `medusa build` of hosts/medusa (medusa-config.ts: the plugin and its provider, the package
 * installed from its packed tarball), a fresh PostgreSQL database, `medusa db:migrate`, an admin user, then
 * `medusa start` as a process that can be stopped and started again.
 */
export class MedusaApp {
  readonly database = `nip_medusa_app_${process.pid}_${randomBytes(4).toString('hex')}`;
  readonly env: NodeJS.ProcessEnv;
  private process: ChildProcess | null = null;
  private starts = 0;

  constructor(
    readonly port: number,
    paymentsUrl: string,
  ) {
    const { DB_USERNAME, DB_HOST, DB_PORT, DB_PASSWORD } = process.env;
    const auth = DB_PASSWORD ? `${DB_USERNAME}:${DB_PASSWORD}` : DB_USERNAME;
    this.env = {
      ...process.env,
      NODE_ENV: 'production',
      MEDUSA_DISABLE_TELEMETRY: 'true',
      PORT: String(port),
      DATABASE_URL: `postgres://${auth}@${DB_HOST}:${DB_PORT}/${this.database}`,
      MEDUSA_URL: `http://localhost:${port}`,
      PAYMENTS_URL: paymentsUrl,
      PAYMENTS_TOKEN: 'sandbox-token',
      JWT_SECRET: randomBytes(16).toString('hex'),
      COOKIE_SECRET: randomBytes(16).toString('hex'),
      NODE_OPTIONS: '',
    };
    mkdirSync(RESULTS, { recursive: true });
  }

  get url(): string {
    return `http://localhost:${this.port}`;
  }

  /**
   * Builds the app (once per test run: every spec file of the run has the same package and configuration), creates
   * its database, migrates it and creates the admin user.
   */
  async prepare(): Promise<void> {
    const marker = join(SERVER_DIR, '.built-for-run');
    const run = process.env.NIP_MEDUSA_DB ?? '';
    if (!run || !existsSync(marker) || readFileSync(marker, 'utf8') !== run) {
      await this.cli(HOST_DIR, 'build');
      writeFileSync(marker, run);
    }
    await this.createDatabase();
  }

  /** A fresh database, migrated by Medusa (its tables; the module's come when the provider starts), and the admin. */
  async createDatabase(): Promise<void> {
    await asAdmin((c) => c.query(`CREATE DATABASE "${this.database}"`));
    await this.cli(SERVER_DIR, 'db:migrate');
    await this.cli(SERVER_DIR, 'user', '-e', ADMIN.email, '-p', ADMIN.password);
  }

  async start(): Promise<void> {
    const log = createWriteStream(join(RESULTS, `medusa-start-${++this.starts}.log`));
    const child = spawn(MEDUSA, ['start'], {
      cwd: SERVER_DIR,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    this.process = child;
    await until(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`medusa start exited (${child.exitCode}); see ${log.path}`);
        return fetch(`${this.url}/health`).then(
          (r) => r.ok,
          () => false,
        );
      },
      180_000,
      'medusa start',
    );
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  async dropDatabase(): Promise<void> {
    await asAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${this.database}" WITH (FORCE)`));
  }

  private async cli(cwd: string, ...args: string[]): Promise<void> {
    try {
      await promisify(execFile)(MEDUSA, args, { cwd, env: this.env, maxBuffer: 64 * 1024 * 1024 });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      throw new Error(`medusa ${args[0]} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
    }
  }
}
