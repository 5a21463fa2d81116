import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where the store keeps its orders and the module's tables. */
export type DemoDatabase = { type: 'postgres'; url: string } | { type: 'better-sqlite3'; database: string };

/** Everything the demo store runs with. {@link loadConfig} builds it from the command line and the environment. */
export interface DemoConfig {
  /** Port of the store; 0 picks a free one. */
  port: number;
  /** Interface the store listens on. */
  host: string;
  /** The store's URL as the payment service reaches it (its webhook URL is derived from it); default from host/port. */
  publicUrl?: string;
  database: DemoDatabase;
  /** The payment service. Absent: the sandbox starts in the same process. */
  gateway?: { baseUrl: string; accessToken: string };
  /** Port of the in-process sandbox (0: a free one). */
  sandboxPort: number;
  /** File the in-process sandbox keeps its invoices in, so they outlive a restart as the store's orders do. */
  sandboxPersistPath?: string;
  /** Bearer key of the admin APIs (the store's and the module's). */
  adminKey: string;
  /** Key encrypting the access token the module stores (32 bytes, base64). */
  encryptionKey: string;
  /** Exit after the walkthrough (status 0 or 1) instead of serving. */
  once: boolean;
  /** How often the shipping worker looks for tracking codes to post, in ms. */
  trackingPollMs: number;
  /** How long a webhook for an invoice the store does not know is retried before it is dead-lettered (default 72 h). */
  unknownInvoiceWindowMs?: number;
}

export const USAGE = `Usage: npm start -- [--once] [--port <n>]

  --once        run the walkthrough, then exit: 0 when every step passed, 1 otherwise
  --port <n>    port of the store (default: PORT, else 9000)
  --help        this text

Environment:
  PORT                 port of the store (default 9000)
  HOST                 interface to listen on (default 127.0.0.1)
  PUBLIC_URL           the store's URL as the payment service sees it (default http://<host>:<port>)
  DATABASE_URL         PostgreSQL URL; default: SQLite file .data/demo-store.sqlite
  GATEWAY_BASE_URL     a payment service (or a sandbox started with npm run sandbox) instead of the in-process sandbox
  GATEWAY_ACCESS_TOKEN its access token (required with GATEWAY_BASE_URL)
  SANDBOX_PORT         port of the in-process sandbox (default: a free one)
  ADMIN_KEY            admin bearer key (default: generated once into .data/admin-key)
  DEMO_DATA_DIR        folder of the local files (default .data)`;

/** A command line the demo cannot run with. */
export class ConfigError extends Error {}

/**
 * Reads the command line and the environment. Creates the data folder, and on first use the admin key and the
 * encryption key inside it (mode 600), so a restart reads the same stored secrets.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): DemoConfig | 'help' {
  let once = false;
  let port = env.PORT ? parsePort('PORT', env.PORT) : 9000;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--once') once = true;
    else if (arg === '--port') port = parsePort('--port', argv[++i]);
    else if (arg.startsWith('--port=')) port = parsePort('--port', arg.slice('--port='.length));
    else throw new ConfigError(`unknown argument "${arg}"`);
  }
  // `.data/` of the repository (gitignored), wherever the command is started from.
  const dataDir = resolve(env.DEMO_DATA_DIR || join(__dirname, '..', '..', '.data'));
  mkdirSync(dataDir, { recursive: true });

  let gateway: DemoConfig['gateway'];
  if (env.GATEWAY_BASE_URL) {
    if (!env.GATEWAY_ACCESS_TOKEN)
      throw new ConfigError('GATEWAY_ACCESS_TOKEN is required with GATEWAY_BASE_URL');
    gateway = { baseUrl: env.GATEWAY_BASE_URL, accessToken: env.GATEWAY_ACCESS_TOKEN };
  }
  const host = env.HOST || '127.0.0.1';
  return {
    port,
    host,
    publicUrl: env.PUBLIC_URL || undefined,
    database: env.DATABASE_URL
      ? { type: 'postgres', url: env.DATABASE_URL }
      : { type: 'better-sqlite3', database: join(dataDir, 'demo-store.sqlite') },
    gateway,
    sandboxPort: env.SANDBOX_PORT ? parsePort('SANDBOX_PORT', env.SANDBOX_PORT) : 0,
    sandboxPersistPath: join(dataDir, 'sandbox.sqlite'),
    adminKey:
      env.ADMIN_KEY || localSecret(join(dataDir, 'admin-key'), () => randomBytes(24).toString('base64url')),
    encryptionKey: localSecret(join(dataDir, 'encryption-key'), () => randomBytes(32).toString('base64')),
    once,
    trackingPollMs: 500,
  };
}

function parsePort(name: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || n > 65535) {
    throw new ConfigError(`${name} must be a port number (0-65535), got "${value ?? ''}"`);
  }
  return n;
}

/** A secret kept in a local file, created on first use; never printed. */
function localSecret(path: string, make: () => string): string {
  if (!existsSync(path)) {
    try {
      writeFileSync(path, `${make()}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another demo process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(path, 'utf8').trim();
}
