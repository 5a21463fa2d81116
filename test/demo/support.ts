import { randomBytes } from 'node:crypto';
import type { DataSourceOptions } from 'typeorm';
import { INVOICE_PAYMENTS_ENTITIES } from '../../src/index';
import { startDemoStore, RunningDemo } from '../../examples/demo-store/bootstrap';
import type { DemoConfig, DemoDatabase } from '../../examples/demo-store/config';
import { DemoOrder } from '../../examples/demo-store/order.entity';
import { DatabaseKind, openTestDatabase, TestDatabase } from '../support/databases';

/**
 * A private database for a demo run. The test keeps its own connection (with every entity, migrations not run)
 * to look at the rows; the demo opens another one and runs the migrations itself, as at `npm start`.
 */
export function openDemoDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  return openTestDatabase(kind, { entities: [...INVOICE_PAYMENTS_ENTITIES, DemoOrder] });
}

/** The demo's database settings for the same database. */
export function demoDatabaseOf(db: TestDatabase): DemoDatabase {
  const options = db.options as DataSourceOptions & { database?: string; url?: string };
  return db.kind === 'postgres'
    ? { type: 'postgres', url: options.url as string }
    : { type: 'better-sqlite3', database: options.database as string };
}

/** The demo as `npm start -- --once` runs it, on a free port, with fresh keys and no files under `.data/`. */
export function testConfig(db: TestDatabase): DemoConfig {
  return {
    port: 0,
    host: '127.0.0.1',
    database: demoDatabaseOf(db),
    sandboxPort: 0,
    adminKey: randomBytes(24).toString('base64url'),
    encryptionKey: randomBytes(32).toString('base64'),
    once: true,
    trackingPollMs: 200,
  };
}

/** Starts the demo quietly (Nest logs off). */
export function startQuietDemo(config: DemoConfig): Promise<RunningDemo> {
  return startDemoStore(config, false);
}

/** A Brazilian shipping address and customer the demo store accepts. */
export const ADDRESS = {
  address_1: 'Rua da Bahia',
  number: '1148',
  district: 'Centro',
  city: 'Belo Horizonte',
  province: 'MG',
  postal_code: '30160-011',
  country_code: 'br',
};
export const CUSTOMER = { first_name: 'Ana', last_name: 'Costa', document: '52998224725' };

/** One answer of the store: status, headers and JSON body. */
export interface StoreAnswer {
  status: number;
  headers: { get(name: string): string | null };
  body: Record<string, unknown>;
}

/** Calls the store over HTTP as JSON; `admin` adds the admin key. */
export function storeCaller(demo: () => RunningDemo, config: () => DemoConfig) {
  return async (method: string, path: string, body?: unknown, admin = false): Promise<StoreAnswer> => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (admin) headers.Authorization = `Bearer ${config().adminKey}`;
    const res = await fetch(`${demo().storeUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
}
