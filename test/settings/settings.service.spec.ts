import { randomBytes } from 'node:crypto';
import { Settings1763700003000 } from '../../migrations/1763700003000-Settings';
import { SettingsWireProfile1763700004000 } from '../../migrations/1763700004000-SettingsWireProfile';
import { SettingsReferrerNamespace1763700008100 } from '../../migrations/1763700008100-SettingsReferrerNamespace';
import { SecretBox } from '../../src/settings/secret-box';
import { InvoicePaymentsSettingsRecord } from '../../src/settings/settings.entity';
import { InvoicePaymentsSettingsService } from '../../src/settings/settings.service';
import type { InvoicePaymentsModuleOptions } from '../../src/options/options';
import { ManualClock } from '../support/clock';
import { describeEachDatabase, openTestDatabase, TestDatabase } from '../support/databases';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('hex');
const ACCESS = 'tok_live_9f8e7d6c5b4a39281706';
const WEBHOOK = 'merchant-hook-secret-5521';

/** The module options whose values are the settings' defaults. */
const defaults = {
  baseUrl: 'http://127.0.0.1:1/options',
  accessToken: 'tok_from_options_000000001',
  dueDays: 3,
  maxInstallments: 6,
};
const options = (ttl: number): InvoicePaymentsModuleOptions => ({
  gateway: { baseUrl: defaults.baseUrl, accessToken: defaults.accessToken, mode: 'sandbox' },
  checkout: { dueDays: defaults.dueDays, maxInstallments: defaults.maxInstallments },
  admin: { settingsCacheTtlMs: ttl },
});

describeEachDatabase('InvoicePaymentsSettingsService', (kind) => {
  let db: TestDatabase;
  const service = (box: SecretBox, ttl = 60_000, clock = new ManualClock()) =>
    new InvoicePaymentsSettingsService(db.dataSource, box, options(ttl), clock);

  beforeEach(async () => {
    db = await openTestDatabase(kind, {
      entities: [InvoicePaymentsSettingsRecord],
      migrations: [
        Settings1763700003000,
        SettingsWireProfile1763700004000,
        SettingsReferrerNamespace1763700008100,
      ],
    });
  });
  afterEach(async () => db.destroy());

  it('gives the module defaults until something is saved, then the saved values over them', async () => {
    const s = service(SecretBox.create({ keys: { k1 } }));
    const before = await s.getEffective();
    expect(before).toMatchObject({ baseUrl: 'http://127.0.0.1:1/options', dueDays: 3, maxInstallments: 6 });
    expect(before).toMatchObject({
      mode: 'sandbox',
      timeZone: 'America/Sao_Paulo',
      overridden: [],
      updatedAt: null,
    });

    const after = await s.update({
      dueDays: 7,
      accessToken: ACCESS,
      ecommerce: { storeId: 12, checkout: 3 },
    });
    expect(after).toMatchObject({ dueDays: 7, accessToken: ACCESS, maxInstallments: 6 });
    expect(after.ecommerce).toEqual({ storeId: 12, checkout: 3 });
    expect(after.overridden).toEqual(['accessToken', 'dueDays', 'ecommerce']);
    expect(await s.gatewayConfig()).toEqual({
      baseUrl: defaults.baseUrl,
      accessToken: ACCESS,
      mode: 'sandbox',
      profile: null,
    });

    // null resets to the default; absent fields stay.
    const reset = await s.update({ dueDays: null });
    expect(reset.dueDays).toBe(3);
    expect(reset.accessToken).toBe(ACCESS);
  });

  it('stores secrets only encrypted, with the key id beside each value', async () => {
    const s = service(SecretBox.create({ keys: { k1 } }));
    await s.update({ accessToken: ACCESS, webhookToken: WEBHOOK });
    const raw: Array<Record<string, unknown>> = await db.dataSource.query(
      'SELECT * FROM invoice_payments_settings',
    );
    const text = JSON.stringify(raw);
    expect(text).not.toContain(ACCESS);
    expect(text).not.toContain(WEBHOOK);
    expect(String(raw[0].access_token_enc)).toMatch(/^v1:k1:[\w-]+:[\w-]+:[\w-]+$/);
    expect(String(raw[0].webhook_token_enc)).toMatch(/^v1:k1:/);
  });

  it('refuses to save a secret without an encryption key, and writes nothing', async () => {
    const s = service(SecretBox.create(undefined, {}));
    await expect(s.update({ accessToken: ACCESS, dueDays: 9 })).rejects.toThrow(
      /no encryption key is configured/,
    );
    const rows: unknown[] = await db.dataSource.query('SELECT * FROM invoice_payments_settings');
    expect(rows).toHaveLength(0);
  });

  it('reads old values after a new key is added, and rotateSecrets moves them to the new key', async () => {
    await service(SecretBox.create({ keys: { k1 } })).update({ accessToken: ACCESS, webhookToken: WEBHOOK });
    const s = service(SecretBox.create({ keys: { k1, k2 }, currentKeyId: 'k2' }));
    expect((await s.getEffective()).accessToken).toBe(ACCESS);

    expect(await s.rotateSecrets()).toEqual({ currentKeyId: 'k2', rotated: 2, remaining: 0 });
    const [row]: Array<Record<string, string>> = await db.dataSource.query(
      'SELECT access_token_enc, webhook_token_enc FROM invoice_payments_settings',
    );
    expect(SecretBox.keyIdOf(row.access_token_enc)).toBe('k2');
    expect(SecretBox.keyIdOf(row.webhook_token_enc)).toBe('k2');
    expect(await s.rotateSecrets()).toEqual({ currentKeyId: 'k2', rotated: 0, remaining: 0 });

    // The old key can go now.
    const onlyNew = service(SecretBox.create({ keys: { k2 } }));
    expect(await onlyNew.getEffective()).toMatchObject({ accessToken: ACCESS, webhookToken: WEBHOOK });
  });

  it('rotation stops at a value whose key is gone, naming the key, and changes nothing', async () => {
    await service(SecretBox.create({ keys: { k1 } })).update({ accessToken: ACCESS });
    const [before]: Array<Record<string, string>> = await db.dataSource.query(
      'SELECT access_token_enc FROM invoice_payments_settings',
    );
    const s = service(SecretBox.create({ keys: { k2 } }));
    await expect(s.rotateSecrets()).rejects.toThrow(
      'value was encrypted with key "k1", which is not configured',
    );
    const [after]: Array<Record<string, string>> = await db.dataSource.query(
      'SELECT access_token_enc FROM invoice_payments_settings',
    );
    expect(after.access_token_enc).toBe(before.access_token_enc);
  });

  it('concurrent saves of different fields all land (optimistic lock retries)', async () => {
    const box = SecretBox.create({ keys: { k1 } });
    const a = service(box);
    const b = service(box);
    await Promise.all([
      a.update({ dueDays: 5 }),
      b.update({ maxInstallments: 10 }),
      a.update({ timeZone: 'America/Manaus' }),
      b.update({ mode: 'production' }),
    ]);
    const s = await service(box).getEffective();
    expect(s).toMatchObject({
      dueDays: 5,
      maxInstallments: 10,
      timeZone: 'America/Manaus',
      mode: 'production',
    });
  });

  it('caches reads for the TTL by the clock, and a save clears the cache of the instance that saved', async () => {
    const box = SecretBox.create({ keys: { k1 } });
    const clock = new ManualClock();
    const reader = service(box, 5000, clock);
    const writer = service(box, 5000, clock);
    expect((await reader.getEffective()).dueDays).toBe(3);
    await writer.update({ dueDays: 11 });
    expect((await writer.getEffective()).dueDays).toBe(11);
    // Another instance sees it once its cache expires (or is cleared).
    clock.advance(4999);
    expect((await reader.getEffective()).dueDays).toBe(3);
    clock.advance(1);
    expect((await reader.getEffective()).dueDays).toBe(11);
    await writer.update({ dueDays: 12 });
    expect((await reader.getEffective()).dueDays).toBe(11);
    reader.invalidate();
    expect((await reader.getEffective()).dueDays).toBe(12);
  });

  it('hands the gateway client empty values for settings configured nowhere (the client refuses, naming them)', async () => {
    const s = new InvoicePaymentsSettingsService(
      db.dataSource,
      SecretBox.create({ keys: { k1 } }),
      { gateway: {} } as InvoicePaymentsModuleOptions,
      new ManualClock(),
    );
    expect(await s.gatewayConfig()).toEqual({ baseUrl: '', accessToken: '', mode: 'sandbox', profile: null });
  });
});
