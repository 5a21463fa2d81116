import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox.entity';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  WebhookApp,
} from '../webhooks/support';

/**
 * Red team of the webhook route (after issue 23): a `Webhook` token whose service part is longer than any token the
 * service issues was sent to the service for validation and came back a 500. It is a 401 without a call.
 */
describeEachDatabase('webhooks: an oversized token', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: WebhookApp;
  const requests: string[] = [];

  beforeAll(async () => {
    db = await openWebhooksDatabase(kind);
    sandbox = await startSandbox({ log: (line) => requests.push(line) });
    app = await startWebhookApp(db, sandbox, { path: 'rt/hook' });
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
    await db?.destroy();
  });

  it('a service part of 513 or 6000 characters: 401 naming the token, no validation call, nothing stored', async () => {
    for (const length of [513, 6000]) {
      requests.length = 0;
      const res = await postDelivery(app.url, '/rt/hook', { invoice: { id: '1' } }, [
        'default',
        tokenLine('', 'x'.repeat(length)),
      ]);
      expect([length, res.status]).toEqual([length, 401]);
      expect(res.body.message).toMatch(/service part is too long/);
      expect(requests.filter((line) => line.startsWith('OPTIONS /webhooks'))).toEqual([]);
    }
    expect(await db.dataSource.getRepository(WebhookInboxEntry).count()).toBe(0);
  });
});
