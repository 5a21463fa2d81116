import { asAdmin } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const name = process.env.NIP_MEDUSA_DB;
  if (name) await asAdmin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
