#!/usr/bin/env node
/**
 * `npx nestjs-invoice-payments-sandbox` (the package's `bin`; `npm run sandbox` in this repository): runs the
 * sandbox for demos and manual tests.
 * Environment: PORT (default 4010), SANDBOX_PERSIST (SQLite file; state survives restarts when set),
 * SANDBOX_LOG=1 (one line per request), SANDBOX_CONTROL_HOSTS (comma-separated host names the `/_sandbox` controls
 * answer besides loopback), SANDBOX_CONTROL_TOKEN (required in `X-Sandbox-Control-Token` by the controls when set),
 * and the webhook retry policy (A13): SANDBOX_WEBHOOK_ATTEMPTS (default 5),
 * SANDBOX_WEBHOOK_BASE_DELAY_MS (200), SANDBOX_WEBHOOK_FACTOR (2), SANDBOX_WEBHOOK_TIMEOUT_MS (5000). A store outage
 * longer than the retries is simulated with e.g. `SANDBOX_WEBHOOK_ATTEMPTS=1`. SANDBOX_TIME_ZONE (default
 * America/Sao_Paulo) is the zone the service counts its days in (A2). SANDBOX_PRODUCT_DISCOUNT (`line`, the
 * default, or `unit`) is what a product's `discount` takes off (A1).
 */
import { ALL_SCOPES, DEFAULT_TOKEN } from './constants';
import { startSandbox } from './server';
import type { ProductDiscountRule, SandboxOptions } from './types';

/** The webhook retry policy from the environment; a value that is not a number in range is refused by name. */
export function webhookRetryFromEnv(env: NodeJS.ProcessEnv): SandboxOptions['webhookRetry'] {
  const read = (name: string, min: number, integer = true): number | undefined => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || (integer && !Number.isSafeInteger(value))) {
      throw new Error(`${name}: must be ${integer ? 'an integer' : 'a number'} >= ${min}, got "${raw}"`);
    }
    return value;
  };
  const retry = {
    attempts: read('SANDBOX_WEBHOOK_ATTEMPTS', 1),
    baseDelayMs: read('SANDBOX_WEBHOOK_BASE_DELAY_MS', 0),
    factor: read('SANDBOX_WEBHOOK_FACTOR', 1, false),
    timeoutMs: read('SANDBOX_WEBHOOK_TIMEOUT_MS', 1),
  };
  return Object.fromEntries(Object.entries(retry).filter(([, v]) => v !== undefined));
}

/** SANDBOX_PRODUCT_DISCOUNT: `line`, `unit` or unset (the default, `line`); anything else refused by name. */
export function productDiscountFromEnv(env: NodeJS.ProcessEnv): ProductDiscountRule | undefined {
  const raw = env.SANDBOX_PRODUCT_DISCOUNT?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'line' || raw === 'unit') return raw;
  throw new Error(`SANDBOX_PRODUCT_DISCOUNT: must be line or unit, got "${raw}"`);
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 4010);
  const persistPath = process.env.SANDBOX_PERSIST || undefined;
  const webhookRetry = webhookRetryFromEnv(process.env);
  const sandbox = await startSandbox({
    port,
    persistPath,
    webhookRetry,
    log: process.env.SANDBOX_LOG === '1' ? (line) => console.log(line) : undefined,
    controlHosts: (process.env.SANDBOX_CONTROL_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    controlToken: process.env.SANDBOX_CONTROL_TOKEN || undefined,
    timeZone: process.env.SANDBOX_TIME_ZONE?.trim() || undefined,
    productDiscount: productDiscountFromEnv(process.env),
  });
  console.log(`Payment service sandbox listening on ${sandbox.url}`);
  console.log(`Sample token: ${DEFAULT_TOKEN} (scopes: ${ALL_SCOPES.join(', ')})`);
  console.log(
    persistPath ? `State persisted in ${persistPath}` : 'State in memory (set SANDBOX_PERSIST to keep it)',
  );
  const retry = { attempts: 5, baseDelayMs: 200, factor: 2, timeoutMs: 5000, ...webhookRetry };
  console.log(
    `Webhook retries: ${retry.attempts} attempt(s), first delay ${retry.baseDelayMs} ms, factor ${retry.factor}, ` +
      `timeout ${retry.timeoutMs} ms (SANDBOX_WEBHOOK_ATTEMPTS, _BASE_DELAY_MS, _FACTOR, _TIMEOUT_MS)`,
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

if (require.main === module)
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
