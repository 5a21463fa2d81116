import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { INestApplication } from '@nestjs/common';
import { JobQueueService, Logger, mergeConfig, TransactionalConnection, VendureConfig } from '@vendure/core';
import { configureSessionCookies, preBootstrapConfig } from '@vendure/core/dist/bootstrap';
import { wrapEarlyMiddlewareHandler } from '@vendure/core/dist/wrap-early-middleware-handler';
import {
  createTestEnvironment,
  registerInitializer,
  SimpleGraphQLClient,
  SqljsInitializer,
  testConfig,
  TestDbInitializer,
  TestServer,
} from '@vendure/testing';
import { Client } from 'pg';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { SandboxServer, startSandbox } from '../../src/sandbox';
import { INITIAL_DATA, seedCatalog } from './catalog';
import { InvoicePaymentsPlugin } from '../../src/vendure';
import type { InvoicePaymentsPluginOptions } from '../../src/vendure';
import type { DatabaseKind } from '../support/databases';
import { postgresAdminUrl } from '../support/pg-url';

// Vendure sends anonymous usage data unless told not to: tests talk to nothing outside this machine.
process.env.VENDURE_DISABLE_TELEMETRY = 'true';

/** A new PostgreSQL database for each run (Vendure's own initializer reuses one per test file name). */
class FreshPostgresInitializer implements TestDbInitializer<PostgresConnectionOptions> {
  readonly name = `nip_vendure_${process.pid}_${randomBytes(4).toString('hex')}`;

  async init(_file: string, options: PostgresConnectionOptions) {
    await this.admin((c) => c.query(`CREATE DATABASE "${this.name}"`));
    const fresh = options as { database?: string; synchronize?: boolean };
    fresh.database = this.name;
    fresh.synchronize = true;
    return options;
  }
  async populate(populate: () => Promise<void>) {
    await populate();
  }
  async destroy() {}
  async drop() {
    await this.admin((c) => c.query(`DROP DATABASE IF EXISTS "${this.name}" WITH (FORCE)`));
  }
  private async admin(fn: (c: Client) => Promise<unknown>) {
    const client = new Client({ connectionString: postgresAdminUrl() });
    await client.connect();
    try {
      await fn(client);
    } finally {
      await client.end();
    }
  }
}

function databaseOptions(kind: DatabaseKind): VendureConfig['dbConnectionOptions'] {
  if (kind === 'sqlite') return testConfig.dbConnectionOptions;
  const url = new URL(postgresAdminUrl());
  return {
    type: 'postgres',
    host: url.hostname,
    port: Number(url.port || 5432),
    username: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password),
    synchronize: true,
    logging: false,
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `@vendure/testing` starts the server on every interface; this is its bootstrap with the listen on 127.0.0.1
 * (with its session cookies and its early middleware, as Vendure's own bootstrap applies them).
 */
function listenOnLoopback(server: TestServer): void {
  (server as unknown as { bootstrapForTesting: unknown }).bootstrapForTesting = async (
    userConfig: Partial<VendureConfig>,
  ): Promise<INestApplication> => {
    const config = await preBootstrapConfig(userConfig);
    Logger.useLogger(config.logger);
    const { AppModule } = await import('@vendure/core/dist/app.module.js');
    const app = await NestFactory.create(AppModule, {
      cors: config.apiOptions.cors,
      logger: new Logger(),
      abortOnError: false,
    });
    const { tokenMethod } = config.authOptions;
    if (tokenMethod === 'cookie' || (Array.isArray(tokenMethod) && tokenMethod.includes('cookie'))) {
      configureSessionCookies(app, config);
    }
    for (const mid of config.apiOptions.middleware.filter((m) => m.beforeListen)) {
      app.use(mid.route, wrapEarlyMiddlewareHandler(mid));
    }
    await app.listen(config.apiOptions.port, '127.0.0.1');
    await app.get(JobQueueService).start();
    return app;
  };
}

export interface VendureTestEnv {
  url: string;
  webhookUrl: string;
  admin: SimpleGraphQLClient;
  shop: SimpleGraphQLClient;
  sandbox: SandboxServer;
  /** Id of the product variant every test order buys (R$ 59,90 with tax). */
  variantId: string;
  shippingMethodId: string;
  /** A provider of the running server (the module's services, to drive them the way test/refunds does). */
  get<T>(token: abstract new (...args: never[]) => T): T;
  /** Stops the Vendure server (the store is down); its database stays. */
  stop(): Promise<void>;
  /** Starts the Vendure server again on the same database and port, as after a restart. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** What a suite may change in {@link startVendure}'s setup. */
export interface VendureSetup {
  /** The sandbox's webhook retries (default: 3 attempts, 50 ms apart). */
  webhookRetry?: { attempts?: number; baseDelayMs?: number; timeoutMs?: number };
  /** Checkout options merged over the default one (the webhook URL). */
  checkout?: Partial<NonNullable<InvoicePaymentsPluginOptions['checkout']>>;
  /** Plugin options merged over the defaults below (e.g. `refunds`). */
  plugin?: Partial<InvoicePaymentsPluginOptions>;
  /** Vendure config merged over the test config (e.g. `authOptions.tokenMethod` for session cookies). */
  vendure?: Partial<VendureConfig>;
  /** The sandbox's clock (default: the wall clock); the one the suite gives the module (`driveSystemClock`). */
  clock?: () => Date;
}

/**
 * A real Vendure server (`@vendure/testing`) on 127.0.0.1 with the plugin, against the sandbox started in-process:
 * its default channel in BRL with prices including tax (as Brazilian prices are), one product and the Correios
 * shipping method with 10 % tax.
 */
export async function startVendure(kind: DatabaseKind, setup: VendureSetup = {}): Promise<VendureTestEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'nip-vendure-'));
  const postgres = kind === 'postgres' ? new FreshPostgresInitializer() : null;
  registerInitializer('sqljs', new SqljsInitializer(dir));
  if (postgres) registerInitializer('postgres', postgres);
  const sandbox = await startSandbox({
    webhookRetry: setup.webhookRetry ?? { attempts: 3, baseDelayMs: 50, timeoutMs: 5000 },
    clock: setup.clock,
  });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const webhookUrl = `${url}/webhooks/invoice-payments`;
  const base = mergeConfig(testConfig, {
    apiOptions: { port },
    dbConnectionOptions: databaseOptions(kind),
    plugins: [
      InvoicePaymentsPlugin.init({
        gateway: { baseUrl: sandbox.url, accessToken: 'sandbox-token', mode: 'sandbox' },
        checkout: { publicWebhookUrl: webhookUrl, ...setup.checkout },
        // Deliveries, status changes and tracking codes are processed as they come (kicked); the polls only pick
        // up retries, so they stay slow: on SQLite every poll is a transaction on the connection Vendure uses too.
        webhooks: { inbox: { pollIntervalMs: 1000, retryBaseDelayMs: 200 } },
        shipping: { pollIntervalMs: 1000, backoff: { initialDelayMs: 200, maxDelayMs: 1000 } },
        notifications: { pollIntervalMs: 1000, retryBaseDelayMs: 200 },
        ...setup.plugin,
      }),
    ],
  });
  const config = mergeConfig(base, setup.vendure ?? {});
  const { server } = createTestEnvironment(config);
  listenOnLoopback(server);
  try {
    await server.init({ initialData: INITIAL_DATA, customerCount: 1 });
  } catch (err) {
    await sandbox.close();
    throw err;
  }
  const admin = new SimpleGraphQLClient(config, `${url}/admin-api`);
  const shop = new SimpleGraphQLClient(config, `${url}/shop-api`);
  await admin.asSuperAdmin();
  const seeded = await seedCatalog(admin);
  return {
    url,
    webhookUrl,
    admin,
    shop,
    sandbox,
    ...seeded,
    get: (token) => (server as unknown as { app: INestApplication }).app.get(token, { strict: false }),
    async stop() {
      // sql.js keeps the database in memory: written to its file first, it survives the restart.
      if (kind === 'sqlite') {
        const app = (server as unknown as { app: INestApplication }).app;
        const driver = app.get(TransactionalConnection).rawConnection.driver as unknown as {
          options: { autoSave?: boolean };
          save(): Promise<void>;
        };
        // Saved now, and on every change until it stops (the plugin releases its leases on the way down).
        driver.options.autoSave = true;
        await driver.save();
      }
      await server.destroy();
    },
    start: () => server.bootstrap(),
    async close() {
      await server.destroy();
      await sandbox.close();
      await postgres?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
