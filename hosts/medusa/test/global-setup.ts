import { randomBytes } from 'node:crypto';
import { Client, type ClientConfig } from 'pg';

/**
 * A fresh PostgreSQL database for the run (dropped by `global-teardown.ts`): Medusa's tables in `public`, the
 * module's in its own schema. The server is the project's, 127.0.0.1:5432 as `postgres` (PGHOST, PGPORT, PGUSER,
 * PGPASSWORD override); `DB_*` are the variables Medusa's test runner reads.
 */
export default async function globalSetup(): Promise<void> {
  process.env.DB_HOST = process.env.PGHOST ?? '127.0.0.1';
  process.env.DB_PORT = process.env.PGPORT ?? '5432';
  process.env.DB_USERNAME = process.env.PGUSER ?? 'postgres';
  process.env.DB_PASSWORD = process.env.PGPASSWORD ?? '';
  const name = `nip_medusa_${process.pid}_${randomBytes(4).toString('hex')}`;
  await asAdmin((c) => c.query(`CREATE DATABASE "${name}"`));
  process.env.NIP_MEDUSA_DB = name;
}

export async function asAdmin(fn: (client: Client) => Promise<unknown>): Promise<void> {
  const config: ClientConfig = {
    host: process.env.DB_HOST,
    port: Number(process.env.DB_PORT),
    user: process.env.DB_USERNAME,
    password: process.env.DB_PASSWORD || undefined,
    database: 'postgres',
  };
  const client = new Client(config);
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}
