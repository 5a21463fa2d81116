import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { WebhookInboxEntry } from '../../src/webhooks/webhook-inbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  openWebhooksDatabase,
  postDelivery,
  startWebhookApp,
  tokenLine,
  WebhookApp,
} from '../webhooks/support';

/**
 * Red team of the webhook route (after issue 23): a `Webhook` token whose service part is longer than the service
 * takes was sent to it for validation and answered 503; a NUL in a delivery's metadata (event, delivery_id, sent_at,
 * webhook) was a PostgreSQL error (500) and, on SQLite, stored. Both are 4xx now, nothing stored.
 */
describeEachDatabase('webhooks: an oversized token, control characters in the metadata', (kind) => {
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

  it('a NUL, CR/LF or bidi override in event, delivery_id, sent_at or webhook: 400 naming it, nothing stored', async () => {
    const line = tokenLine('', (sandbox.controls.webhooks()[0] as { token: string }).token);
    const cases: Array<[string, Record<string, unknown>]> = [
      ['event', { event: 'invoice.update\u0000' }],
      ['delivery_id', { delivery_id: 'd\u0000x' }],
      ['sent_at', { sent_at: '2026-11-23\r\n12:00' }],
      ['webhook', { webhook: 'default\u202E' }],
    ];
    for (const [field, extra] of cases) {
      const res = await postDelivery(
        app.url,
        '/rt/hook',
        { event: 'invoice.update', invoice: { id: '1' }, ...extra },
        ['default', line],
      );
      expect([field, res.status]).toEqual([field, 400]);
      expect(res.body.message).toBe(
        `body.${field}: must not contain control characters (NUL, line breaks, tabs, ESC, bidi overrides such as U+202E)`,
      );
    }
    expect(await db.dataSource.getRepository(WebhookInboxEntry).count()).toBe(0);
  });
});
