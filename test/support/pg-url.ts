/** The PostgreSQL server the tests use: `DATABASE_URL`, else the local trust-auth server. */
export function postgresAdminUrl(): string {
  return process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
}
