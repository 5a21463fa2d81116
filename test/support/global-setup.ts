import { Client } from 'pg';
import { postgresAdminUrl } from './pg-url';

/**
 * Decides once per `npm test` whether the PostgreSQL half runs.
 * Without a server the SQLite half still runs and a loud line says what was skipped;
 * with `REQUIRE_POSTGRES=1` (CI) an absent server fails the run instead.
 */
export default async function globalSetup(): Promise<void> {
  const url = postgresAdminUrl();
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    process.env.TEST_POSTGRES_AVAILABLE = '1';
  } catch (err) {
    if (process.env.REQUIRE_POSTGRES === '1') {
      throw new Error(
        `REQUIRE_POSTGRES=1 but PostgreSQL is not reachable at ${redact(url)}: ${(err as Error).message}`,
      );
    }
    process.env.TEST_POSTGRES_AVAILABLE = '0';
    const line = '#'.repeat(100);
    console.warn(
      `\n${line}\n# SKIPPED: PostgreSQL half of the persistence tests (no server at ${redact(url)}).\n` +
        `# Only SQLite ran. Start PostgreSQL or set DATABASE_URL; CI sets REQUIRE_POSTGRES=1.\n${line}\n`,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
