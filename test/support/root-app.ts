import { randomBytes } from 'node:crypto';
import { EventEmitter2 } from '@nestjs/event-emitter';
import request from 'supertest';
import { InvoicePaymentsModule, InvoicePaymentsModuleRootOptions } from '../../src/index';
import { StatusChangeDispatcher } from '../../src/core/status-dispatcher.service';
import { WebhookInboxProcessor } from '../../src/webhooks/webhook-inbox.processor';
import type { SandboxServer } from '../../src/sandbox';
import { HostApp, ModuleImport, RecordingOrderPort, startHostApp } from './app';
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

/**
 * The whole module as a store registers it (`InvoicePaymentsModule.forRoot`), listening on loopback, with short
 * test timings, an admin key, a recording order port and `publicWebhookUrl` pointing at its own route. `options`
 * are laid over those defaults (its `gateway` is required); `extra` are the host's own modules beside it.
 */
export async function startRootApp(
  db: TestDatabase,
  sandbox: SandboxServer,
  options: Partial<InvoicePaymentsModuleRootOptions> & Pick<InvoicePaymentsModuleRootOptions, 'gateway'>,
  extra: ModuleImport[] = [],
): Promise<RootApp> {
  const host = await startHostApp(
    db,
    [
      InvoicePaymentsModule.forRoot({
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
      }),
      ...extra,
    ],
    { listen: true },
  );
  const server = host.app.getHttpServer();
  const admin: RootApp['admin'] = (method, path, body) => {
    const req = request(server)
      [method](`/admin/invoice-payments/${path}`)
      .set('Authorization', `Bearer ${ROOT_APP_ADMIN_KEY}`);
    return body ? req.send(body) : req;
  };
  const saved = await admin('put', 'settings', { publicWebhookUrl: `${host.url}/webhooks/invoice-payments` });
  if (saved.status !== 200)
    throw new Error(`saving publicWebhookUrl: ${saved.status} ${JSON.stringify(saved.body)}`);
  return {
    ...host,
    admin,
    async settle() {
      await sandbox.controls.waitForDeliveries();
      await host.app.get(WebhookInboxProcessor).drain();
      await host.app.get(StatusChangeDispatcher).drain();
    },
    on: (event, listener) => host.app.get(EventEmitter2).on(event, listener),
  };
}
