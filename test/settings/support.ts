import { randomBytes } from 'node:crypto';
import { Global, INestApplication, LoggerService, Module, Type } from '@nestjs/common';
import request from 'supertest';
import {
  CheckoutOptions,
  GatewayClient,
  INVOICE_PAYMENTS_ENTITIES,
  INVOICE_PAYMENTS_MIGRATIONS,
  InvoicePaymentProvider,
  InvoicePaymentsModule,
  type InvoicePaymentsAdminOptions,
  type RefundsOptions,
} from '../../src/index';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import type { SandboxServer } from '../../src/sandbox';
import { startHostApp } from '../support/app';
import { DatabaseKind, openTestDatabase, TestDatabase } from '../support/databases';

/** The admin key the test apps accept. */
export const ADMIN_KEY = 'admin-key-0123456789abcdef';

/** A fresh 32-byte encryption key, base64. */
export function newKey(): string {
  return randomBytes(32).toString('base64');
}

/** A database with every table of the module, made by its migrations. */
export function openAdminDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  return openTestDatabase(kind, {
    entities: INVOICE_PAYMENTS_ENTITIES,
    migrations: INVOICE_PAYMENTS_MIGRATIONS,
  });
}

export interface AdminApp {
  app: INestApplication;
  /** Base URL of the app on loopback. */
  url: string;
  /** Full URL of the module's (public) webhook route. */
  webhookUrl: string;
  /** supertest agent of the app's HTTP server. */
  http(): ReturnType<typeof request>;
  provider: InvoicePaymentProvider;
  settings: InvoicePaymentsSettingsService;
  gateway: GatewayClient;
  close(): Promise<void>;
}

export interface AdminAppOptions {
  /** Module options' access token (the default the settings override). */
  accessToken?: string;
  admin?: InvoicePaymentsAdminOptions;
  checkout?: CheckoutOptions;
  merchantToken?: string;
  /** Where Nest logs go (default: errors only, to the console). */
  logger?: LoggerService;
  /** Classes a global host module provides (a host guard and its dependencies). */
  hostProviders?: Type[];
  /** Client timeouts (refund tests lose answers to them). */
  timeouts?: { defaultMs?: number; readMs?: number };
  /** The module's `refunds` section. */
  refunds?: RefundsOptions;
  /** The service's URL when not the sandbox's own (a proxy in front of it). */
  baseUrl?: string;
  /** Providers the test replaces, as `[token, value]` (e.g. `[CLOCK, clock]`). */
  overrides?: Array<[unknown, unknown]>;
}

/**
 * A host app as a store builds it: TypeORM on the test database, the event bus and `InvoicePaymentsModule.forRoot`,
 * talking to the sandbox over HTTP, with the admin API mounted.
 */
export async function startAdminApp(
  db: TestDatabase,
  sandbox: SandboxServer,
  options: AdminAppOptions = {},
): Promise<AdminApp> {
  const hostProviders = options.hostProviders ?? [];

  @Global()
  @Module({ providers: hostProviders, exports: hostProviders })
  class HostModule {}

  const { app, url, close } = await startHostApp(
    db,
    [
      InvoicePaymentsModule.forRoot({
        gateway: {
          baseUrl: options.baseUrl ?? sandbox.url,
          accessToken: options.accessToken ?? 'sandbox-token',
          mode: 'sandbox',
          retry: { maxAttempts: 1 },
          ...(options.timeouts ? { timeouts: options.timeouts } : {}),
          // No DNS here: every other name resolves to a public address, as a real service's name would.
          lookup: async (host) => [
            { address: host === 'localhost' ? '127.0.0.1' : '93.184.216.34', family: 4 },
          ],
        },
        checkout: { ...options.checkout },
        webhooks: {
          inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50, retryMaxDelayMs: 500 },
          ...(options.merchantToken ? { merchantToken: options.merchantToken } : {}),
        },
        notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20, retryMaxDelayMs: 200 },
        admin: { adminKey: ADMIN_KEY, settingsCacheTtlMs: 60_000, ...options.admin },
        ...(options.refunds ? { refunds: options.refunds } : {}),
      }),
    ],
    { hostImports: [HostModule], logger: options.logger, listen: true, overrides: options.overrides },
  );
  return {
    app,
    url,
    webhookUrl: `${url}/webhooks/invoice-payments`,
    http: () => request(app.getHttpServer()),
    provider: app.get(InvoicePaymentProvider),
    settings: app.get(InvoicePaymentsSettingsService),
    gateway: app.get(GatewayClient),
    close,
  };
}

/** A public https base URL (resolved by the test lookup) that production mode accepts. */
export const PUBLIC_BASE_URL = 'https://payments.example.com';

/** `Authorization` header with the test admin key. */
export const adminAuth = { Authorization: `Bearer ${ADMIN_KEY}` };

/** Where the admin API is mounted by default. */
export const ADMIN_PATH = '/admin/invoice-payments';

/** Saves the app's own webhook URL as the `publicWebhookUrl` setting, so the sandbox's deliveries come back to it. */
export async function pointWebhooksAtApp(app: AdminApp): Promise<void> {
  await app
    .http()
    .put(`${ADMIN_PATH}/settings`)
    .set(adminAuth)
    .send({ publicWebhookUrl: app.webhookUrl })
    .expect(200);
}
