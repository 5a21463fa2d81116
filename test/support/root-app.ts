import { randomBytes } from 'node:crypto';
import type { DynamicModule } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { InvoicePaymentsModule, InvoicePaymentsModuleRootOptions } from '../../src/index';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import { resolveWebhooksOptions } from '../../src/options/webhooks.options';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import type { SandboxServer } from '../../src/sandbox';
import { HostApp, HostAppOptions, ModuleImport, RecordingOrderPort, startHostApp } from './app';
import type { TestDatabase } from './databases';

/** The admin key of {@link startRootApp}'s module. */
export const ROOT_APP_ADMIN_KEY = 'admin-key-root-app-0123456789';

export interface RootApp extends HostApp {
  /** A request to the admin API with the admin key. */
  admin(method: 'get' | 'put' | 'post', path: string, body?: object): request.Test;
  /** Waits until the sandbox has delivered, the inbox has processed and the host's port has been told. */
  settle(): Promise<void>;
  on<T>(event: string, listener: (payload: T) => void): void;
}

/** What a test gives the root module: its `gateway`, and any section to lay over the test defaults. */
export type RootAppOptions = Partial<InvoicePaymentsModuleRootOptions> &
  Pick<InvoicePaymentsModuleRootOptions, 'gateway'>;

/**
 * `InvoicePaymentsModule.forRoot` with short test timings, an admin key and a recording order port; each section of
 * `options` replaces the default one. The one way a test wires the module: it has no other.
 */
export function testRootModule(options: RootAppOptions): DynamicModule {
  return InvoicePaymentsModule.forRoot({
    webhooks: { inbox: { pollIntervalMs: 50, retryBaseDelayMs: 50, retryMaxDelayMs: 200 } },
    shipping: { pollIntervalMs: 50, backoff: { initialDelayMs: 20, maxDelayMs: 100 } },
    admin: {
      adminKey: ROOT_APP_ADMIN_KEY,
      encryption: { keys: { k1: randomBytes(32) } },
      settingsCacheTtlMs: 0,
    },
    notifications: { pollIntervalMs: 100, retryBaseDelayMs: 20 },
    orderPort: RecordingOrderPort,
    ...options,
  });
}

/**
 * The whole module as a store registers it ({@link testRootModule}), listening on loopback, with `publicWebhookUrl`
 * pointing at its own route. `extra` are the host's own modules beside it; `hostOptions` its logger, configuration.
 * `settle` waits for the sandbox's deliveries when given the sandbox (a proxy in front of it has none to wait for).
 */
export async function startRootApp(
  db: TestDatabase,
  sandbox: SandboxServer | { url: string },
  options: RootAppOptions,
  extra: ModuleImport[] = [],
  hostOptions: Pick<HostAppOptions, 'logger' | 'configure' | 'overrides'> = {},
): Promise<RootApp> {
  const app = await startHostApp(db, [testRootModule(options), ...extra], { ...hostOptions, listen: true });
  const server = app.app.getHttpServer();
  const admin: RootApp['admin'] = (method, path, body) => {
    const req = request(server)
      [method](`/admin/invoice-payments/${path}`)
      .set('Authorization', `Bearer ${ROOT_APP_ADMIN_KEY}`);
    return body ? req.send(body) : req;
  };
  // Saved as the admin page saves it, but not over HTTP: a host's global guard or middleware may be under test.
  const webhookPath = resolveWebhooksOptions(options.webhooks).path;
  await app.app.get(InvoicePaymentsSettingsService).update({ publicWebhookUrl: `${app.url}/${webhookPath}` });
  return {
    ...app,
    admin,
    async settle() {
      if ('controls' in sandbox) await sandbox.controls.waitForDeliveries();
      await app.app.get(WebhookInboxProcessor).drain();
      await app.app.get(StatusChangeDispatcher).drain();
    },
    on: (event, listener) => app.app.get(EventEmitter2).on(event, listener),
  };
}
