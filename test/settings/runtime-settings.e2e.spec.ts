import { CLOCK } from '../../src/domain/clock';
import { addDays, todayIn } from '../../src/domain/text-and-days';
import { GatewayAuthenticationError, InvoiceRecord } from '../../src/index';
import { InvoicePaymentsSettingsRecord } from '../../src/settings/settings.entity';
import { ALL_SCOPES, startSandbox, type SandboxServer } from '../../src/sandbox';
import { SecretBox } from '../../src/settings/secret-box';
import { checkout, makeOrder } from '../checkout/support';
import { SAO_PAULO_NOON, ShiftedClock } from '../support/clock';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import {
  adminAuth,
  AdminApp,
  type AdminAppOptions,
  newKey,
  openAdminDatabase,
  startAdminApp,
} from './support';

const A = '/admin/invoice-payments';
/** The only token the sandboxes accept: the options' token is not it, so only the saved one works. */
const SAVED = 'tok_saved_runtime_0123456789ab';
const OPTIONS_TOKEN = 'tok_options_not_accepted_9999';

/** Saved settings reach the next checkout without a restart; secrets survive key rotation. */
describeEachDatabase('runtime settings', (kind) => {
  let db: TestDatabase;
  let sandbox: SandboxServer;
  let other: SandboxServer;
  const k1 = newKey();
  const k2 = newKey();
  // The apps and the sandboxes read one clock, away from midnight: a due date is counted from one day.
  const clock = new ShiftedClock(SAO_PAULO_NOON);

  beforeAll(async () => {
    const tokens = [{ token: SAVED, scopes: [...ALL_SCOPES] }];
    sandbox = await startSandbox({ tokens, clock: () => clock.date() });
    other = await startSandbox({ tokens, clock: () => clock.date() });
  });
  afterAll(async () => {
    await sandbox.close();
    await other.close();
  });
  beforeEach(async () => {
    db = await openAdminDatabase(kind);
  });
  afterEach(async () => db.destroy());

  const put = (app: AdminApp, body: object) =>
    app.http().put(`${A}/settings`).set(adminAuth).send(body).expect(200);
  const atService = (server: SandboxServer, gatewayId: string) => server.controls.getInvoice(gatewayId);
  const start = (options: AdminAppOptions) =>
    startAdminApp(db, sandbox, { ...options, overrides: [[CLOCK, clock]] });

  it('a saved access token, due days, URL template and ecommerce ids apply to the very next checkout', async () => {
    const app = await start({
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k1 } } },
      checkout: { dueDays: 3 },
    });
    try {
      // With the options' token the service refuses; nothing is created there.
      await expect(app.provider.initiatePayment(checkout(makeOrder(), 'pix'))).rejects.toThrow();
      await expect(app.gateway.credentialStatus()).rejects.toBeInstanceOf(GatewayAuthenticationError);

      await put(app, {
        accessToken: SAVED,
        dueDays: 12,
        orderUrlTemplate: 'https://shop.example/orders/{order_id}',
        ecommerce: { storeId: 77, checkout: 5 },
      });
      const order = makeOrder();
      const out = await app.provider.initiatePayment(checkout(order, 'pix'));
      const day = addDays(todayIn('America/Sao_Paulo', clock.date()), 12);
      expect(out.data).toMatchObject({ creationState: 'created', dueDate: day });
      const created = atService(sandbox, out.data.gatewayId as string);
      expect(created).toMatchObject({
        dueDay: day,
        orderUrl: `https://shop.example/orders/${order.id}`,
        ecommerce: { storeId: 77, checkout: 5 },
      });

      // Methods too: the store turns the bank slip off, and the next billet checkout is refused.
      await put(app, { enabledMethods: ['pix', 'card'] });
      await expect(app.provider.initiatePayment(checkout(makeOrder(), 'billet'))).rejects.toThrow(/method/);
    } finally {
      await app.close();
    }
  });

  it('a saved base URL sends the next checkout to the other service', async () => {
    const app = await start({
      accessToken: SAVED,
      admin: { encryption: { keys: { k1 } } },
    });
    try {
      const first = await app.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(atService(sandbox, first.data.gatewayId as string)).toBeDefined();

      // A new host needs the token in the same request: the stored one never follows a new host.
      const refused = await app.http().put(`${A}/settings`).set(adminAuth).send({ baseUrl: other.url });
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.errors)).toEqual(['accessToken']);
      await put(app, { baseUrl: other.url, accessToken: SAVED });
      const second = await app.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(atService(other, second.data.gatewayId as string)).toBeDefined();
      expect(atService(sandbox, second.data.gatewayId as string)?.referrer).not.toBe(second.data.referrer);

      // Back to the options' host: the token saved for the other one does not go with it, the options' pair does.
      const back = await app.http().put(`${A}/settings`).set(adminAuth).send({ baseUrl: null });
      expect(back.status).toBe(400);
      expect(Object.keys(back.body.errors)).toEqual(['accessToken']);
      await put(app, { baseUrl: null, accessToken: null });
      const third = await app.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(atService(sandbox, third.data.gatewayId as string)?.referrer).toBe(third.data.referrer);
    } finally {
      await app.close();
    }
  });

  it("no token reaches a host it was not given for: not the options' one by null, not one saved in a race", async () => {
    const app = await start({ accessToken: OPTIONS_TOKEN, admin: { encryption: { keys: { k1 } } } });
    const settings = () => app.http().get(`${A}/settings`).set(adminAuth);
    try {
      // `null` brings back the options' token: with a new host, it would go there.
      const refused = await app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({ baseUrl: other.url, accessToken: null });
      expect(refused.status).toBe(400);
      expect(Object.keys(refused.body.errors)).toEqual(['accessToken']);
      expect((await settings()).body.baseUrl).toBe(sandbox.url);

      // Admin B saves a token for the host B saw; admin A moves the host before B's save lands.
      const update = app.settings.update.bind(app.settings);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const bChecked = new Promise<void>((resolve) => (entered = resolve));
      jest.spyOn(app.settings, 'update').mockImplementation(async (body, check) => {
        if (body.accessToken === SAVED) {
          entered();
          await gate;
        }
        return update(body, check);
      });
      const b = app
        .http()
        .put(`${A}/settings`)
        .set(adminAuth)
        .send({ accessToken: SAVED })
        .then((r) => r);
      await bChecked;
      await put(app, { baseUrl: other.url, accessToken: 'tok_admin_a_for_other' });
      release();
      expect((await b).status).toBe(409);
      const now = (await settings()).body;
      expect(now.baseUrl).toBe(other.url);
      expect(now.accessToken.last4).toBe('…ther');
    } finally {
      await app.close();
    }
  });

  it('another instance sees a saved change once its cache is cleared (no restart)', async () => {
    const shared = {
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k1 } }, settingsCacheTtlMs: 0 },
    };
    const writer = await start(shared);
    const reader = await start(shared);
    try {
      await expect(reader.gateway.credentialStatus()).rejects.toBeInstanceOf(GatewayAuthenticationError);
      await put(writer, { accessToken: SAVED });
      // A zero cache lifetime: every call reads the row.
      expect((await reader.gateway.credentialStatus()).active).toBe(true);
    } finally {
      await writer.close();
      await reader.close();
    }
  });

  it('rotates keys: old values stay readable with the new key added, rotation re-encrypts, the old key can go', async () => {
    const rows = () => db.dataSource.getRepository(InvoicePaymentsSettingsRecord).find();

    const before = await start({
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k1 } } },
    });
    try {
      await put(before, { accessToken: SAVED, webhookToken: 'hook-merchant-1' });
    } finally {
      await before.close();
    }
    expect(SecretBox.keyIdOf((await rows())[0].accessTokenEnc as string)).toBe('k1');

    const during = await start({
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k1, k2 }, currentKeyId: 'k2' } },
    });
    try {
      // Still readable (the sandbox only accepts the saved token, so a checkout proves it decrypted).
      const ok = await during.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(ok.data.creationState).toBe('created');

      const res = await during.http().post(`${A}/settings/rotate-secrets`).set(adminAuth).expect(200);
      expect(res.body).toEqual({ currentKeyId: 'k2', rotated: 2, remaining: 0 });
      const [row] = await rows();
      expect(SecretBox.keyIdOf(row.accessTokenEnc as string)).toBe('k2');
      expect(SecretBox.keyIdOf(row.webhookTokenEnc as string)).toBe('k2');
      const again = await during.http().post(`${A}/settings/rotate-secrets`).set(adminAuth).expect(200);
      expect(again.body).toEqual({ currentKeyId: 'k2', rotated: 0, remaining: 0 });
    } finally {
      await during.close();
    }

    const after = await start({
      accessToken: OPTIONS_TOKEN,
      admin: { encryption: { keys: { k2 } } },
    });
    try {
      const ok = await after.provider.initiatePayment(checkout(makeOrder(), 'pix'));
      expect(ok.data.creationState).toBe('created');
      const shown = await after.http().get(`${A}/settings`).set(adminAuth).expect(200);
      expect(shown.body.accessToken).toEqual({ set: true, last4: '…89ab', source: 'saved' });
    } finally {
      await after.close();
    }

    // With only the retired key, the settings cannot be read: the answer names the key, never a secret.
    const stale = await start({ admin: { encryption: { keys: { k1 } } } });
    try {
      const res = await stale.http().get(`${A}/settings`).set(adminAuth).expect(500);
      expect(res.body.message).toBe('value was encrypted with key "k2", which is not configured');
      expect(await db.dataSource.getRepository(InvoiceRecord).count()).toBe(2);
    } finally {
      await stale.close();
    }
  });
});
