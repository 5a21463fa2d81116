import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type Provider } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  GATEWAY_CONNECTION_SOURCE,
  type GatewayConnectionSource,
  type ResolvedGatewayConfig,
} from '../gateway/gateway.options';
import { DataSource, Repository } from 'typeorm';
import { CHECKOUT_SETTINGS } from '../checkout/checkout.tokens';
import { CLOCK, type Clock } from '../domain/clock';
import { runInTransaction } from '../persistence/dialect';
import { INVOICE_PAYMENTS_OPTIONS } from '../options/resolve';
import type { InvoicePaymentsModuleOptions } from '../options/options';
import {
  BUILT_IN_DEFAULTS,
  SECRET_SETTINGS,
  settingsDefaultsOf,
  type InvoicePaymentsSettingsValues,
  type SettingName,
} from '../options/settings.schema';
import { WEBHOOK_MERCHANT_TOKEN_SOURCE, type WebhookMerchantTokenSource } from '../webhooks/delivery-checks';
import { SecretBox } from './secret-box';
import { applyUpdate, savedValues, secretColumn, secretContext, type SettingsUpdate } from './settings-row';
import { InvoicePaymentsSettingsRecord } from './settings.entity';

/** The one row of settings (the store's), named in the admin API's answers (`storeId`). */
const STORE_ID = 'default';

/** What the module runs with right now: defaults overridden by the saved row. */
export interface EffectiveSettings extends InvoicePaymentsSettingsValues {
  storeId: string;
  /** Settings whose value comes from the saved row. */
  overridden: SettingName[];
  /** `null` when nothing was ever saved. */
  updatedAt: Date | null;
}

/**
 * Judges a save by the settings in force before it and after it, as written, and the settings the row then holds
 * (the others are the module options'); throws to refuse it.
 */
export type SettingsCheck = (
  before: InvoicePaymentsSettingsValues,
  after: InvoicePaymentsSettingsValues,
  saved: SettingName[],
) => void;

/** Two admins saved at once and this save lost every retry. Over the admin API: 409. */
export class SettingsConflictError extends Error {
  override readonly name = 'SettingsConflictError';
}

/**
 * The settings the module runs with: the module options (each setting's `option`, else its built-in default)
 * overridden by what the admin saved, where a `null` column means the default and secrets are `SecretBox` values.
 * Cached for `admin.settingsCacheTtlMs`; a save clears this instance's cache, so no restart is needed.
 */
@Injectable()
export class InvoicePaymentsSettingsService implements GatewayConnectionSource, WebhookMerchantTokenSource {
  private readonly logger = new Logger('InvoicePaymentsSettings');
  private cached: { expiresAt: number; value: Promise<EffectiveSettings> } | null = null;
  private namespace: Promise<string> | null = null;
  private readonly ttlMs: number;
  private readonly defaults: InvoicePaymentsSettingsValues;
  private readonly rows: Repository<InvoicePaymentsSettingsRecord>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly box: SecretBox,
    @Inject(INVOICE_PAYMENTS_OPTIONS) options: InvoicePaymentsModuleOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.ttlMs = options.admin?.settingsCacheTtlMs ?? 5000;
    this.defaults = { ...BUILT_IN_DEFAULTS, ...settingsDefaultsOf(options) };
    this.rows = dataSource.getRepository(InvoicePaymentsSettingsRecord);
  }

  async getEffective(): Promise<EffectiveSettings> {
    if (this.cached && this.cached.expiresAt > this.clock.now()) return this.cached.value;
    const value = this.load();
    this.cached = { expiresAt: this.clock.now() + this.ttlMs, value };
    // A failed read is not cached.
    value.catch(() => {
      if (this.cached?.value === value) this.cached = null;
    });
    return value;
  }

  /** The webhook route's merchant token in force: saved by the admin, else `webhooks.merchantToken`. */
  async merchantToken(): Promise<string | null> {
    return (await this.getEffective()).webhookToken;
  }

  /** The gateway's connection in force; an unconfigured setting comes back empty and the client refuses to call. */
  async gatewayConfig(): Promise<ResolvedGatewayConfig> {
    const { baseUrl, accessToken, mode, wireProfile } = await this.getEffective();
    return { baseUrl: baseUrl ?? '', accessToken: accessToken ?? '', mode, profile: wireProfile };
  }

  /** Saves a change (absent: unchanged, `null`: back to the default); secrets encrypted with the current key. */
  /**
   * Saves `update`. `check` sees the settings in force before and after it, as this save writes them (a save that
   * lost a race runs again on the fresh row, and so does `check`); what it throws is the save's answer, nothing saved.
   */
  async update(update: SettingsUpdate, check?: SettingsCheck): Promise<EffectiveSettings> {
    const secrets = SECRET_SETTINGS.filter((name) => update[name] !== undefined).map((name) => {
      const value = update[name];
      const encrypted =
        value === null || value === undefined ? null : this.box.encrypt(value, secretContext(STORE_ID, name));
      return [secretColumn(name), encrypted] as const;
    });
    await this.saveWithRetry(STORE_ID, (row) => {
      const before = this.inForce(savedValues(row, this.box));
      applyUpdate(row, update);
      Object.assign(row, Object.fromEntries(secrets), { updatedAt: this.clock.date() });
      const saved = savedValues(row, this.box);
      check?.(before, this.inForce(saved), Object.keys(saved) as SettingName[]);
    });
    this.invalidate();
    const fields = Object.keys(update).filter((k) => update[k as SettingName] !== undefined);
    this.logger.log(`settings of store "${STORE_ID}" saved (${fields.join(', ') || 'no fields'})`);
    return this.getEffective();
  }

  /** Re-encrypts secrets under old keys with the current one; old keys may go once `remaining` is 0. */
  async rotateSecrets(): Promise<{ currentKeyId: string | null; rotated: number; remaining: number }> {
    const stale = (row: InvoicePaymentsSettingsRecord) =>
      SECRET_SETTINGS.filter((name) => {
        const value = row[secretColumn(name)];
        return !!value && this.box.needsRotation(value);
      });
    let rotated = 0;
    for (const { id } of await this.rows.find({ select: { id: true } })) {
      // Per attempt: a save that lost a race runs the change again on the fresh row.
      let inRow = 0;
      await this.saveWithRetry(id, (row) => {
        const names = stale(row);
        for (const name of names) {
          const plain = this.box.decrypt(row[secretColumn(name)] as string, secretContext(id, name));
          row[secretColumn(name)] = this.box.encrypt(plain, secretContext(id, name));
          row.updatedAt = this.clock.date();
        }
        inRow = names.length;
      });
      rotated += inRow;
    }
    this.invalidate();
    const remaining = (await this.rows.find()).reduce((n, row) => n + stale(row).length, 0);
    this.logger.log(
      `secrets rotated to key "${this.box.currentKeyId}": ${rotated} value(s), ${remaining} remaining`,
    );
    return { currentKeyId: this.box.currentKeyId, rotated, remaining };
  }

  /** This installation's referrer namespace: made at random once; every instance reads back the first one stored. */
  referrerNamespace(): Promise<string> {
    this.namespace ??= this.ensureNamespace().catch((err: unknown) => {
      this.namespace = null;
      throw err;
    });
    return this.namespace;
  }

  private async ensureNamespace(): Promise<string> {
    const stored = await this.rows.findOneBy({ id: STORE_ID });
    if (stored?.referrerNamespace) return stored.referrerNamespace;
    const made = newNamespace();
    await this.saveWithRetry(STORE_ID, (row) => (row.referrerNamespace ??= made));
    const row = await this.rows.findOneByOrFail({ id: STORE_ID });
    if (!row.referrerNamespace) throw new Error('the referrer namespace could not be stored');
    this.logger.log(`referrer namespace of store "${STORE_ID}": ${row.referrerNamespace}`);
    return row.referrerNamespace;
  }

  /** Forgets the cached settings. */
  invalidate(): void {
    this.cached = null;
  }

  private async load(): Promise<EffectiveSettings> {
    const row = await this.rows.findOneBy({ id: STORE_ID });
    const saved = row ? savedValues(row, this.box) : {};
    return {
      ...this.inForce(saved),
      storeId: STORE_ID,
      overridden: (Object.keys(saved) as SettingName[]).sort(),
      updatedAt: row?.updatedAt ?? null,
    };
  }

  /** The settings in force: the defaults overridden by what a row holds (its secrets decrypted once, by the caller). */
  private inForce(saved: Partial<InvoicePaymentsSettingsValues>): InvoicePaymentsSettingsValues {
    return {
      ...this.defaults,
      ...saved,
      enabledMethods: [...(saved.enabledMethods ?? this.defaults.enabledMethods)],
    };
  }

  /** Read, change, write in one transaction if nobody wrote in between (version check); the loser retries. */
  private async saveWithRetry(
    storeId: string,
    change: (row: InvoicePaymentsSettingsRecord) => void,
  ): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      let inserting = false;
      const saved = await runInTransaction(this.dataSource, async (em) => {
        const rows = em.getRepository(InvoicePaymentsSettingsRecord);
        const now = this.clock.date();
        const current = await rows.findOneBy({ id: storeId });
        if (!current) {
          const row = rows.create({ id: storeId, createdAt: now, updatedAt: now, version: 1 });
          change(row);
          inserting = true;
          await rows.insert(row);
          return true;
        }
        const { version } = current;
        change(current);
        const { id: _id, version: _v, createdAt: _c, ...columns } = current;
        const result = await rows.update({ id: storeId, version }, columns);
        return result.affected === 1;
      }).catch(async (err: unknown) => {
        // Another save inserted the row first: go round again and update it.
        if (inserting && (await this.rows.existsBy({ id: storeId }))) return false;
        throw err;
      });
      if (saved) return;
    }
    throw new SettingsConflictError('the settings were changed by someone else at the same time; try again');
  }
}

/**
 * This service under the tokens its readers ask for, each read through the settings' cache, so a change in the admin
 * page applies without a restart: the checkout reads the settings in force and the referrer namespace; the webhook
 * route, the merchant token per delivery; the gateway, its connection before every call.
 */
export const settingsReaders: Provider[] = [
  { provide: CHECKOUT_SETTINGS, useExisting: InvoicePaymentsSettingsService },
  { provide: WEBHOOK_MERCHANT_TOKEN_SOURCE, useExisting: InvoicePaymentsSettingsService },
  { provide: GATEWAY_CONNECTION_SOURCE, useExisting: InvoicePaymentsSettingsService },
];

/** ~41 bits: no two installations share one in practice. */
function newNamespace(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}
