/**
 * `npm start`: boots the demo store with the payment module (and the sandbox, in this process, unless
 * GATEWAY_BASE_URL points at another service), walks orders through their whole life while printing a timeline,
 * then keeps serving. `npm start -- --once` exits after the walkthrough: 0 when every step passed, 1 otherwise.
 */
import 'reflect-metadata';
import { startDemoStore, MODULE_ADMIN_PATH, RunningDemo } from './bootstrap';
import { ConfigError, DemoConfig, loadConfig, USAGE } from './config';
import { Timeline } from './timeline';
import { runWalkthrough } from './walkthrough';

async function main(): Promise<number | null> {
  let config: DemoConfig | 'help';
  try {
    config = loadConfig(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (config === 'help') {
    console.log(USAGE);
    return 0;
  }
  const t = new Timeline();
  t.line(t.highlight('Demo store: PIX, bank slip and card payments with nestjs-invoice-payments'));
  t.section('Starting');
  let demo: RunningDemo;
  try {
    demo = await startDemoStore(config);
  } catch (err) {
    const inUse = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    const hint = inUse ? ' (choose another port: npm start -- --port <n>, or PORT)' : '';
    t.fail(`The store could not start: ${err instanceof Error ? err.message : String(err)}${hint}`);
    return 1;
  }
  t.step(`Database: ${describeDatabase(config)} (migrations ran at start)`);
  t.step(
    demo.sandbox
      ? `Sandbox of the payment service started at ${demo.gatewayUrl}`
      : `Payment service: ${demo.gatewayUrl}`,
  );
  t.step(`Store listening at ${demo.storeUrl}`);
  t.step(`Shop page (order and pay in the browser): ${demo.storeUrl}/shop`);
  t.step('Configured the module through its admin settings API (PUT /admin/invoice-payments/settings)');
  t.detail('Service base URL', demo.gatewayUrl);
  t.detail('Webhook URL', demo.webhookUrl);
  const failing = demo.credentials.operations.filter((o) => o.result !== 'ok');
  if (failing.length > 0) {
    t.fail(`Credential check: ${failing.map((o) => `${o.operation} ${o.result}`).join(', ')}`);
  } else {
    t.ok(`Credential check passed (${demo.credentials.operations.length} operations)`);
  }

  const result = await runWalkthrough({
    storeUrl: demo.storeUrl,
    // An external sandbox (`npm run sandbox`) has the same controls; a real service has none, so the walkthrough
    // then fails at the customer's payment.
    sandboxUrl: demo.sandbox?.url ?? demo.gatewayUrl,
    adminKey: config.adminKey,
    timeline: t,
  });
  const ok = result.ok && failing.length === 0;

  if (config.once) {
    await demo.close();
    return ok ? 0 : 1;
  }
  printUrls(t, demo, config.adminKey);
  const stop = (): void => {
    t.line('Stopping...');
    demo.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return null;
}

/** The URLs to try, and the admin key (a local demo key: the admin page asks for it). */
function printUrls(t: Timeline, demo: RunningDemo, adminKey: string): void {
  t.section('Serving (Ctrl+C to stop)');
  const rows: Array<[string, string]> = [
    ['Shop page', `${demo.storeUrl}/shop (place an order and pay it: PIX, bank slip or card)`],
    [
      'Storefront',
      `${demo.storeUrl}/store/products · POST ${demo.storeUrl}/store/orders · POST /store/orders/:id/payment`,
    ],
    ['Store admin', `${demo.storeUrl}/admin/orders (Bearer admin key: ADMIN_KEY, else .data/admin-key)`],
    ['Payment admin', `${demo.storeUrl}${MODULE_ADMIN_PATH}/ (web page: sign in with the admin key below)`],
    ['Admin key', adminKey],
    ['Payment API', `${demo.storeUrl}${MODULE_ADMIN_PATH}/settings · /credentials/check · /invoices`],
    ['Webhooks', demo.webhookUrl],
    [
      'Payment service',
      demo.sandbox ? `${demo.gatewayUrl} (sandbox; controls under /_sandbox)` : demo.gatewayUrl,
    ],
  ];
  for (const [label, value] of rows) t.detail(label.padEnd(15), value);
}

/** The database in words, without its password. */
function describeDatabase(config: DemoConfig): string {
  if (config.database.type === 'better-sqlite3') return `SQLite ${config.database.database}`;
  const url = new URL(config.database.url);
  return `PostgreSQL ${url.hostname}:${url.port || 5432}${url.pathname}`;
}

main().then(
  (code) => {
    if (code !== null) process.exit(code);
  },
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
