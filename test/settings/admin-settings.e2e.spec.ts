import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  ADMIN_KEY,
  adminAuth,
  AdminApp,
  newKey,
  openAdminDatabase,
  PUBLIC_BASE_URL,
  startAdminApp,
} from './support';

const OPTIONS_TOKEN = 'tok_options_1111222233334444';
const SAVED_TOKEN = 'tok_saved_aaaabbbbccccdddd9876';
const SAVED_HOOK = 'hook-7f3e9a1c';

/** The settings routes: the guard, reading (masked), saving (validated, encrypted), the prefix and a host guard. */
describeEachDatabase('admin API: settings', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let app: AdminApp;
  const key = newKey();

  beforeAll(async () => {
    sandbox = await startSandbox({ tokens: [{ token: SAVED_TOKEN, scopes: ['invoice.read'] }] });
  });
  afterAll(async () => sandbox.close());

  beforeEach(async () => {
    db = await openAdminDatabase(kind);
    app = await startAdminApp(db, sandbox, {
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k1: key } } },
      checkout: { dueDays: 4, maxInstallments: 6 },
    });
  });
  afterEach(async () => {
    await app.close();
    await db.destroy();
  });

  const rawRows = (): Promise<Array<Record<string, unknown>>> =>
    db.dataSource.query('SELECT * FROM invoice_payments_settings');

  describe('guard', () => {
    it('answers 401 without a key, with a wrong key and with another scheme; 200 with the key', async () => {
      const none = await app.http().get('/admin/invoice-payments/settings');
      expect(none.status).toBe(401);
      expect(none.body.message).toMatch(/admin key required/);

      const wrong = await app
        .http()
        .get('/admin/invoice-payments/settings')
        .set('Authorization', 'Bearer nope');
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe('admin key is not valid');

      const almost = await app
        .http()
        .get('/admin/invoice-payments/settings')
        .set('Authorization', `Bearer ${ADMIN_KEY}x`);
      expect(almost.status).toBe(401);

      const basic = await app
        .http()
        .get('/admin/invoice-payments/settings')
        .set('Authorization', `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`);
      expect(basic.status).toBe(401);

      const ok = await app.http().get('/admin/invoice-payments/settings').set(adminAuth);
      expect(ok.status).toBe(200);
    });

    it('guards every admin route, writes included, and changes nothing when refused', async () => {
      const routes: Array<[string, string]> = [
        ['put', '/admin/invoice-payments/settings'],
        ['post', '/admin/invoice-payments/settings/rotate-secrets'],
        ['post', '/admin/invoice-payments/credentials/check'],
        ['get', '/admin/invoice-payments/invoices'],
        ['get', '/admin/invoice-payments/invoices/x'],
        ['post', '/admin/invoice-payments/invoices/x/due-date'],
        ['post', '/admin/invoice-payments/invoices/x/cancel'],
        ['post', '/admin/invoice-payments/invoices/x/refund'],
        ['post', '/admin/invoice-payments/webhooks/resend'],
      ];
      for (const [method, path] of routes) {
        const agent = app.http();
        const res = await (
          method === 'put' ? agent.put(path) : method === 'post' ? agent.post(path) : agent.get(path)
        )
          .set('Authorization', 'Bearer wrong-key')
          .send({ dueDays: 9 });
        expect([path, res.status]).toEqual([path, 401]);
      }
      expect(await rawRows()).toEqual([]);
    });

    it('leaves the webhook route public: it answers by its own token check, not the admin key', async () => {
      const res = await app.http().post('/webhooks/invoice-payments').send({ event: 'invoice.update' });
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body)).not.toMatch(/admin key/);
    });
  });

  describe('reading and saving', () => {
    it('shows the options as defaults, secrets masked', async () => {
      const res = await app.http().get('/admin/invoice-payments/settings').set(adminAuth).expect(200);
      expect(res.body).toMatchObject({
        baseUrl: sandbox.url,
        mode: 'sandbox',
        dueDays: 4,
        maxInstallments: 6,
        enabledMethods: ['pix', 'billet', 'card'],
        timeZone: 'America/Sao_Paulo',
        overridden: [],
        accessToken: { set: true, last4: '…4444', source: 'options' },
        webhookToken: { set: false, last4: null, source: null },
      });
      expect(JSON.stringify(res.body)).not.toContain(OPTIONS_TOKEN);
    });

    it('saves a change, answers the new settings masked, and keeps the other fields', async () => {
      const res = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({
          accessToken: SAVED_TOKEN,
          webhookToken: SAVED_HOOK,
          dueDays: 10,
          enabledMethods: ['pix', 'card'],
          ecommerce: { storeId: 42, checkout: 7 },
          orderUrlTemplate: 'https://shop.example/orders/{order_id}',
          publicWebhookUrl: 'https://shop.example/webhooks/invoice-payments',
          timeZone: 'America/Manaus',
        })
        .expect(200);
      expect(res.body).toMatchObject({
        dueDays: 10,
        maxInstallments: 6,
        enabledMethods: ['pix', 'card'],
        ecommerce: { storeId: 42, checkout: 7 },
        orderUrlTemplate: 'https://shop.example/orders/{order_id}',
        timeZone: 'America/Manaus',
        accessToken: { set: true, last4: '…9876', source: 'saved' },
        // Shorter than 16 characters: not even the last four are shown.
        webhookToken: { set: true, last4: null, source: 'saved' },
      });
      expect(res.body.overridden).toEqual(
        expect.arrayContaining(['accessToken', 'webhookToken', 'dueDays', 'enabledMethods', 'ecommerce']),
      );
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(SAVED_TOKEN);
      expect(text).not.toContain(SAVED_HOOK);

      const again = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ dueDays: null, mode: 'production', baseUrl: PUBLIC_BASE_URL, accessToken: SAVED_TOKEN })
        .expect(200);
      expect(again.body).toMatchObject({
        dueDays: 4,
        mode: 'production',
        baseUrl: PUBLIC_BASE_URL,
        enabledMethods: ['pix', 'card'],
      });
      expect(again.body.accessToken).toEqual({ set: true, last4: '…9876', source: 'saved' });

      const read = await app.http().get('/admin/invoice-payments/settings').set(adminAuth).expect(200);
      expect(read.body).toEqual(again.body);
    });

    it('resets a secret to the options value with null', async () => {
      await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ accessToken: SAVED_TOKEN });
      const res = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ accessToken: null })
        .expect(200);
      expect(res.body.accessToken).toEqual({ set: true, last4: '…4444', source: 'options' });
      expect((await rawRows())[0].access_token_enc).toBeNull();
    });

    it('stores secrets encrypted: the raw table holds no secret in clear, and a key id beside each value', async () => {
      await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ accessToken: SAVED_TOKEN, webhookToken: SAVED_HOOK })
        .expect(200);
      const rows = await rawRows();
      expect(rows).toHaveLength(1);
      const text = JSON.stringify(rows);
      expect(text).not.toContain(SAVED_TOKEN);
      expect(text).not.toContain(SAVED_HOOK);
      // Not even a recognisable part of them.
      expect(text).not.toContain(SAVED_TOKEN.slice(4, 16));
      expect(rows[0].access_token_enc).toMatch(/^v1:k1:[\w-]{16}:[\w-]{22}:[\w-]+$/);
      expect(rows[0].webhook_token_enc).toMatch(/^v1:k1:/);
    });
  });

  describe('validation', () => {
    it('answers 400 with a message per field, and saves nothing', async () => {
      const res = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({
          baseUrl: 'ftp://example.com',
          accessToken: 'has space in it',
          webhookToken: 'a:b',
          mode: 'live',
          ecommerce: { storeId: 'x', checkout: 0 },
          enabledMethods: ['pix', 'boleto'],
          dueDays: -1,
          maxInstallments: 99,
          orderUrlTemplate: 'https://shop.example/orders/{orderNumber}',
          timeZone: 'Mars/Olympus',
          color: 'blue',
        })
        .expect(400);
      expect(res.body.message).toMatch(/^invalid /);
      expect(Object.keys(res.body.errors).sort()).toEqual(
        [
          'accessToken',
          'baseUrl',
          'color',
          'dueDays',
          'ecommerce.checkout',
          'ecommerce.storeId',
          'enabledMethods',
          'maxInstallments',
          'mode',
          'orderUrlTemplate',
          'timeZone',
          'webhookToken',
        ].sort(),
      );
      expect(res.body.errors).toMatchObject({
        baseUrl: ['baseUrl must be an http or https URL'],
        accessToken: ['accessToken must not contain spaces'],
        webhookToken: ['webhookToken must not contain spaces or ":" (the token separator)'],
        mode: ['mode must be sandbox or production'],
        'ecommerce.storeId': expect.arrayContaining(['storeId must be an integer']),
        'ecommerce.checkout': ['checkout must be at least 1'],
        enabledMethods: ['enabledMethods may only hold pix, billet, card'],
        dueDays: ['dueDays must be 0 or more'],
        maxInstallments: ['maxInstallments must be at most 12'],
        timeZone: ['timeZone must be an IANA time zone such as America/Sao_Paulo'],
        color: ['property color should not exist'],
      });
      // The rejected secret is not echoed.
      expect(JSON.stringify(res.body)).not.toContain('has space in it');
      expect(await rawRows()).toEqual([]);
    });

    it('refuses a body that is not an object', async () => {
      const res = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .set('Content-Type', 'application/json')
        .send('[1,2]');
      expect(res.status).toBe(400);
      expect(await rawRows()).toEqual([]);
    });
  });
});

describeEachDatabase('admin API: configuration', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => sandbox.close());
  beforeEach(async () => {
    db = await openAdminDatabase(kind);
  });
  afterEach(async () => db.destroy());

  it('mounts the admin API under a configured prefix', async () => {
    const app = await startAdminApp(db, sandbox, { admin: { prefix: '/backoffice/payments/' } });
    try {
      await app.http().get('/backoffice/payments/settings').set(adminAuth).expect(200);
      await app.http().get('/admin/invoice-payments/settings').set(adminAuth).expect(404);
    } finally {
      await app.close();
    }
  });

  it('uses the host guard instead of the admin key when one is given (an instance)', async () => {
    const seen: string[] = [];
    const hostGuard: CanActivate = {
      canActivate(context: ExecutionContext) {
        const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; url: string }>();
        seen.push(req.url);
        return req.headers['x-staff'] === 'alice';
      },
    };
    const app = await startAdminApp(db, sandbox, { admin: { guard: hostGuard } });
    try {
      await app.http().get('/admin/invoice-payments/settings').set('x-staff', 'alice').expect(200);
      // The admin key means nothing now: the host guard decides (its `false` is Nest's 403).
      await app.http().get('/admin/invoice-payments/settings').set(adminAuth).expect(403);
      await app.http().get('/admin/invoice-payments/settings').expect(403);
      expect(seen).toEqual([
        '/admin/invoice-payments/settings',
        '/admin/invoice-payments/settings',
        '/admin/invoice-payments/settings',
      ]);
    } finally {
      await app.close();
    }
  });

  it('uses a host guard class with its own dependencies, resolved from the host', async () => {
    @Injectable()
    class StaffDirectory {
      readonly staff = new Set(['bob']);
    }
    @Injectable()
    class StaffGuard implements CanActivate {
      constructor(private readonly directory: StaffDirectory) {}
      canActivate(context: ExecutionContext): boolean {
        const req = context.switchToHttp().getRequest<{ headers: Record<string, string> }>();
        return this.directory.staff.has(req.headers['x-staff']);
      }
    }
    const app = await startAdminApp(db, sandbox, {
      admin: { guard: StaffGuard },
      hostProviders: [StaffDirectory, StaffGuard],
    });
    try {
      await app.http().get('/admin/invoice-payments/settings').set('x-staff', 'bob').expect(200);
      await app.http().get('/admin/invoice-payments/settings').set('x-staff', 'eve').expect(403);
    } finally {
      await app.close();
    }
  });

  it('answers 401 to everything when neither an admin key nor a guard is configured', async () => {
    const app = await startAdminApp(db, sandbox, { admin: { adminKey: undefined } });
    try {
      await app
        .http()
        .get('/admin/invoice-payments/settings')
        .set('Authorization', 'Bearer anything')
        .expect(401);
      await app.http().get('/admin/invoice-payments/settings').expect(401);
    } finally {
      await app.close();
    }
  });

  it('refuses a short admin key at startup, without echoing it', async () => {
    await expect(startAdminApp(db, sandbox, { admin: { adminKey: 'short-key' } })).rejects.toThrow(
      'admin.adminKey must be at least 16 characters',
    );
  });

  it('refuses to save a secret without an encryption key, naming the field; other settings still save', async () => {
    const previous = process.env.INVOICE_PAYMENTS_ENCRYPTION_KEYS;
    delete process.env.INVOICE_PAYMENTS_ENCRYPTION_KEYS;
    const app = await startAdminApp(db, sandbox);
    try {
      const res = await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ accessToken: SAVED_TOKEN, dueDays: 5 })
        .expect(400);
      expect(res.body.errors.accessToken[0]).toMatch(/no encryption key is configured/);
      const rows: unknown[] = await db.dataSource.query('SELECT * FROM invoice_payments_settings');
      expect(rows).toEqual([]);
      await app
        .http()
        .put('/admin/invoice-payments/settings')
        .set(adminAuth)
        .send({ dueDays: 5 })
        .expect(200);
    } finally {
      if (previous !== undefined) process.env.INVOICE_PAYMENTS_ENCRYPTION_KEYS = previous;
      await app.close();
    }
  });

  it('takes the encryption keys from the environment when the options give none', async () => {
    const envKey = newKey();
    process.env.INVOICE_PAYMENTS_ENCRYPTION_KEYS = `env1:${envKey}`;
    try {
      const app = await startAdminApp(db, sandbox);
      try {
        await app
          .http()
          .put('/admin/invoice-payments/settings')
          .set(adminAuth)
          .send({ accessToken: SAVED_TOKEN });
      } finally {
        await app.close();
      }
      const [row]: Array<{ access_token_enc: string }> = await db.dataSource.query(
        'SELECT access_token_enc FROM invoice_payments_settings',
      );
      expect(row.access_token_enc).toMatch(/^v1:env1:/);
    } finally {
      delete process.env.INVOICE_PAYMENTS_ENCRYPTION_KEYS;
    }
  });
});
