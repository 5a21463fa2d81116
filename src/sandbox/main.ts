#!/usr/bin/env node
/**
 * `npx nestjs-invoice-payments-sandbox` (the package's `bin`; `npm run sandbox` in this repository): runs the
 * sandbox for demos and manual tests.
 * Environment: PORT (default 4010), SANDBOX_PERSIST (SQLite file; state survives restarts when set),
 * SANDBOX_LOG=1 (one line per request), SANDBOX_CONTROL_HOSTS (comma-separated host names the `/_sandbox` controls
 * answer besides loopback), SANDBOX_CONTROL_TOKEN (required in `X-Sandbox-Control-Token` by the controls when set).
 */
import { ALL_SCOPES, DEFAULT_TOKEN } from './constants';
import { startSandbox } from './server';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 4010);
  const persistPath = process.env.SANDBOX_PERSIST || undefined;
  const sandbox = await startSandbox({
    port,
    persistPath,
    log: process.env.SANDBOX_LOG === '1' ? (line) => console.log(line) : undefined,
    controlHosts: (process.env.SANDBOX_CONTROL_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    controlToken: process.env.SANDBOX_CONTROL_TOKEN || undefined,
  });
  console.log(`Payment service sandbox listening on ${sandbox.url}`);
  console.log(`Sample token: ${DEFAULT_TOKEN} (scopes: ${ALL_SCOPES.join(', ')})`);
  console.log(
    persistPath ? `State persisted in ${persistPath}` : 'State in memory (set SANDBOX_PERSIST to keep it)',
  );
  console.log(`Try: curl -H 'Authorization: Bearer ${DEFAULT_TOKEN}' ${sandbox.url}/invoices`);
  const stop = (): void => {
    console.log('Stopping the sandbox...');
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
