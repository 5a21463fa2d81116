import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type Provider } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ResolvedGatewayConfig } from '../gateway/gateway.options';
import { DataSource, Repository } from 'typeorm';
import { CLOCK, type Clock } from '../domain/clock';
import { runInTransaction } from '../persistence/dialect';
import {
  INVOICE_PAYMENTS_ADMIN_OPTIONS,
  INVOICE_PAYMENTS_SECRET_BOX,
  INVOICE_PAYMENTS_SETTINGS_DEFAULTS,
} from './constants';
import { SettingsConflictError } from './errors';
import { SecretBox } from './secret-box';
import { DEFAULT_SETTINGS_ID, InvoicePaymentsSettingsRecord } from './settings.entity';
import {
  applyUpdate,
  maskSettings,
  mergeSettings,
  SECRET_SETTINGS,
  secretColumn,
  secretContext,
  type EffectiveSettings,
  type InvoicePaymentsSettingsDefaults,
  type MaskedSettings,
  type SettingsUpdate,
} from './settings.entity';
import type { SettingName } from '../options/settings.schema';
import type { InvoicePaymentsAdminOptions } from '../options/admin.options';
import { WEBHOOK_MERCHANT_TOKEN_SOURCE, type WebhookMerchantTokenSource } from '../webhooks/delivery-checks';

/**
 * The settings the module runs with: module options overridden by what the admin saved. Cached for
 * `admin.settingsCacheTtlMs`; a save clears this instance's cache, so no restart is needed.
 */
@Injectable()
export class InvoicePaymentsSettingsService {
  private readonly logger = new Logger('InvoicePaymentsSettings');
  private readonly cache = new Map<string, { expiresAt: number; value: Promise<EffectiveSettings> }>();
  private readonly ttlMs: number;

  private readonly rows: Repository<InvoicePaymentsSettingsRecord>;
  private readonly namespaces = new Map<string, Promise<string>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(INVOICE_PAYMENTS_SECRET_BOX) private readonly box: SecretBox,
    @Inject(INVOICE_PAYMENTS_SETTINGS_DEFAULTS) private readonly defaults: InvoicePaymentsSettingsDefaults,
    @Inject(INVOICE_PAYMENTS_ADMIN_OPTIONS) admin: InvoicePaymentsAdminOptions,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.ttlMs = admin.settingsCacheTtlMs ?? 5000;
    this.rows = dataSource.getRepository(InvoicePaymentsSettingsRecord);
  }

  async getEffective(storeId: string = DEFAULT_SETTINGS_ID): Promise<EffectiveSettings> {
    const hit = this.cache.get(storeId);
    if (hit && hit.expiresAt > this.clock.now()) return hit.value;
    const value = this.load(storeId);
    this.cache.set(storeId, { expiresAt: this.clock.now() + this.ttlMs, value });
    // A failed read is not cached.
    value.catch(() => this.cache.get(storeId)?.value === value && this.cache.delete(storeId));
    return value;
  }

  /** For `GatewayClientOptions.resolveConfig`: an unconfigured setting comes back empty and the client refuses. */
  async gatewayConfig(storeId: string = DEFAULT_SETTINGS_ID): Promise<ResolvedGatewayConfig> {
    const s = await this.getEffective(storeId);
    return {
      baseUrl: s.baseUrl ?? '',
      accessToken: s.accessToken ?? '',
      mode: s.mode,
      profile: s.wireProfile,
    };
  }

  async getMasked(storeId: string = DEFAULT_SETTINGS_ID): Promise<MaskedSettings> {
    return maskSettings(await this.getEffective(storeId));
  }

  /** Saves a change (absent: unchanged, `null`: back to the default); secrets encrypted with the current key. */
  async update(update: SettingsUpdate, storeId: string = DEFAULT_SETTINGS_ID): Promise<EffectiveSettings> {
    const secrets = SECRET_SETTINGS.filter((name) => update[name] !== undefined).map((name) => {
      const value = update[name];
      const encrypted =
        value === null || value === undefined ? null : this.box.encrypt(value, secretContext(storeId, name));
      return [secretColumn(name), encrypted] as const;
    });
    await this.saveWithRetry(storeId, (row) => {
      applyUpdate(row, update);
      Object.assign(row, Object.fromEntries(secrets), { updatedAt: this.clock.date() });
    });
    this.invalidate(storeId);
    const fields = Object.keys(update).filter((k) => update[k as SettingName] !== undefined);
    this.logger.log(`settings of store "${storeId}" saved (${fields.join(', ') || 'no fields'})`);
    return this.getEffective(storeId);
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
      this.invalidate(id);
    }
    const remaining = (await this.rows.find()).reduce((n, row) => n + stale(row).length, 0);
    this.logger.log(
      `secrets rotated to key "${this.box.currentKeyId}": ${rotated} value(s), ${remaining} remaining`,
    );
    return { currentKeyId: this.box.currentKeyId, rotated, remaining };
  }

  /** This installation's referrer namespace: made at random once; every instance reads back the first one stored. */
  referrerNamespace(storeId: string = DEFAULT_SETTINGS_ID): Promise<string> {
    let known = this.namespaces.get(storeId);
    if (!known) {
      known = this.ensureNamespace(storeId);
      this.namespaces.set(storeId, known);
      known.catch(() => this.namespaces.delete(storeId));
    }
    return known;
  }

  private async ensureNamespace(storeId: string): Promise<string> {
    const stored = await this.rows.findOne({
      where: { id: storeId },
      select: { id: true, referrerNamespace: true },
    });
    if (stored?.referrerNamespace) return stored.referrerNamespace;
    const made = newNamespace();
    await this.saveWithRetry(storeId, (row) => (row.referrerNamespace ??= made));
    const row = await this.rows.findOneByOrFail({ id: storeId });
    if (!row.referrerNamespace) throw new Error('the referrer namespace could not be stored');
    this.logger.log(`referrer namespace of store "${storeId}": ${row.referrerNamespace}`);
    return row.referrerNamespace;
  }

  /** Forgets cached settings (all stores when no id is given). */
  invalidate(storeId?: string): void {
    if (storeId === undefined) this.cache.clear();
    else this.cache.delete(storeId);
  }

  private async load(storeId: string): Promise<EffectiveSettings> {
    const row = await this.rows.findOneBy({ id: storeId });
    const secrets: Partial<EffectiveSettings> = {};
    if (row) {
      for (const name of SECRET_SETTINGS) {
        const value = row[secretColumn(name)];
        if (value !== null) secrets[name] = this.box.decrypt(value, secretContext(storeId, name));
      }
    }
    return mergeSettings(storeId, this.defaults, row, secrets);
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
    throw new SettingsConflictError();
  }
}

/**
 * The webhook route's merchant token: the one in force (saved by the admin, else `webhooks.merchantToken`), read
 * per delivery through the settings' cache, so a token changed in the admin page applies without a restart.
 */
export const merchantTokenFromSettings: Provider = {
  provide: WEBHOOK_MERCHANT_TOKEN_SOURCE,
  useFactory: (settings: InvoicePaymentsSettingsService): WebhookMerchantTokenSource => ({
    merchantToken: async () => (await settings.getEffective()).webhookToken,
  }),
  inject: [InvoicePaymentsSettingsService],
};

/** ~41 bits: no two installations share one in practice. */
function newNamespace(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(8), (b) => alphabet[b % alphabet.length]).join('');
}
