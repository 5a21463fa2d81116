import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import helmet from 'helmet';
import type { AddressInfo } from 'node:net';
import type { CredentialCheckReport } from '../../src/settings/credential-check.service';
import { DEFAULT_TOKEN, SandboxServer, startSandbox } from '../../src/sandbox/index';
import { DemoAppModule } from './app.module';
import type { DemoConfig } from './config';

/** The route of the module's webhook controller (its default `webhooks.path`). */
export const WEBHOOK_PATH = '/webhooks/invoice-payments';
/** The module's admin API (its default `admin.prefix`). */
export const MODULE_ADMIN_PATH = '/admin/invoice-payments';

/** A running demo: the store, and the sandbox when it runs in this process. */
export interface RunningDemo {
  app: INestApplication;
  /** Where the store listens, e.g. `http://127.0.0.1:9000`. */
  storeUrl: string;
  /** The webhook URL the service is given (`payment.webhook`). */
  webhookUrl: string;
  /** The payment service's base URL. */
  gatewayUrl: string;
  /** The in-process sandbox; absent when `GATEWAY_BASE_URL` points elsewhere. */
  sandbox?: SandboxServer;
  /** What the credential check answered after the settings were saved. */
  credentials: CredentialCheckReport;
  /** Stops the store, then the sandbox. */
  close(): Promise<void>;
}

/**
 * Starts the sandbox (unless another service is configured), boots the store (migrations run on start), and
 * configures the payment module through its admin settings API, as a store owner would in the admin panel: the
 * service's base URL and access token, and the store's public webhook URL. Then checks the credential.
 */
export async function startDemoStore(
  config: DemoConfig,
  logger: LogLevel[] | false = ['error', 'warn'],
): Promise<RunningDemo> {
  const sandbox = config.gateway
    ? undefined
    : await startSandbox({ port: config.sandboxPort, persistPath: config.sandboxPersistPath });
  let app: INestApplication | undefined;
  const gatewayUrl = config.gateway?.baseUrl ?? (sandbox as SandboxServer).url;
  try {
    app = await NestFactory.create(
      DemoAppModule.register({
        database: config.database,
        adminKey: config.adminKey,
        encryptionKey: config.encryptionKey,
        trackingPollMs: config.trackingPollMs,
        unknownInvoiceWindowMs: config.unknownInvoiceWindowMs,
        gatewayUrl,
      }),
      { logger },
    );
    secureHeaders(app);
    await app.listen(config.port, config.host);
    const { port } = app.getHttpServer().address() as AddressInfo;
    const storeUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    const publicUrl = (config.publicUrl ?? storeUrl).replace(/\/+$/, '');
    const webhookUrl = `${publicUrl}${WEBHOOK_PATH}`;
    const admin = moduleAdmin(storeUrl, config.adminKey);
    await admin('PUT', '/settings', {
      baseUrl: gatewayUrl,
      accessToken: config.gateway?.accessToken ?? DEFAULT_TOKEN,
      mode: 'sandbox',
      publicWebhookUrl: webhookUrl,
      orderUrlTemplate: `${publicUrl}/store/orders/{order_id}`,
      storeUrlTemplate: publicUrl,
    });
    const credentials = (await admin('POST', '/credentials/check')) as CredentialCheckReport;
    const running = app;
    return {
      app: running,
      storeUrl,
      webhookUrl,
      gatewayUrl,
      sandbox,
      credentials,
      async close() {
        try {
          await running.close();
        } finally {
          await sandbox?.close();
        }
      },
    };
  } catch (err) {
    await app?.close().catch(() => undefined);
    await sandbox?.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The usual security headers on every answer (helmet's defaults: nosniff, frame and referrer policies, HSTS, a
 * strict CSP for anything rendered), and no `X-Powered-By`: the store does not say what it runs on.
 */
function secureHeaders(app: INestApplication): void {
  (app.getHttpAdapter().getInstance() as { disable(setting: string): void }).disable('x-powered-by');
  app.use(helmet());
}

/** Calls the module's admin API with the admin key; throws with the answer's message on failure. */
function moduleAdmin(storeUrl: string, adminKey: string) {
  return async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${storeUrl}${MODULE_ADMIN_PATH}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${adminKey}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const message = (answer as { message?: unknown } | null)?.message ?? res.statusText;
      throw new Error(
        `${method} ${MODULE_ADMIN_PATH}${path} answered ${res.status}: ${JSON.stringify(message)}`,
      );
    }
    return answer;
  };
}
