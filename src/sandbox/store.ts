import { createRequire } from 'node:module';
import type { SandboxInvoiceRecord, WebhookRegistration } from './types';

export interface ConsumerRecord {
  id: string;
  name: string;
  document: string | null;
  email: string | null;
  createdAt: string;
}

export interface DisputeRecord {
  id: string;
  kind: 'mediation' | 'chargeback';
  /** The invoice's `invoice_id`. */
  invoiceId: string;
  status: string;
  reason: string;
  amountCents: number;
  createdAt: string;
}

export interface CardTokenRecord {
  token: string;
  brand: string;
  bin: string;
  last4: string;
  expiry: string;
  holder: string;
  approved: boolean;
}

export interface IssuedTokenRecord {
  token: string;
  scopes: string[];
  /** Epoch ms by the sandbox clock; null never expires. */
  expiresAt: number | null;
}

/** The counter of invoice numbers (see `nextInvoiceNumber`). */
const INVOICE_NUMBER = 'invoice-number';

type Kind = 'invoice' | 'consumer' | 'dispute' | 'webhook' | 'card' | 'token' | 'counter';

/** The part of better-sqlite3 the store uses (the package ships no types here). */
interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): { run(...args: unknown[]): unknown; all(...args: unknown[]): unknown[] };
  close(): void;
}

/**
 * Sandbox state: maps in memory, written through to a SQLite file when `persistPath` is set so a demo can
 * restart without losing invoices. The delivery log and pending retries are not persisted.
 */
export class Store {
  readonly invoices = new Map<string, SandboxInvoiceRecord>();
  readonly consumers = new Map<string, ConsumerRecord>();
  readonly disputes = new Map<string, DisputeRecord>();
  readonly webhooks = new Map<string, WebhookRegistration>();
  readonly cardTokens = new Map<string, CardTokenRecord>();
  readonly issuedTokens = new Map<string, IssuedTokenRecord>();
  private readonly counters = new Map<string, number>();
  private readonly byInvoiceId = new Map<string, string>();

  private constructor(private readonly db: SqliteDatabase | null) {}

  /** Opens the store, loading the SQLite file when a path is given. */
  static open(persistPath?: string): Store {
    if (!persistPath) return new Store(null);
    // Loaded on demand: better-sqlite3 is only needed by sandboxes that persist.
    const Database = createRequire(__filename)('better-sqlite3') as new (path: string) => SqliteDatabase;
    const db = new Database(persistPath);
    db.exec(
      'CREATE TABLE IF NOT EXISTS sandbox_state (kind TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, ' +
        'PRIMARY KEY (kind, key))',
    );
    const store = new Store(db);
    store.load();
    return store;
  }

  /** An invoice by its `id` (invoice number) or its `invoice_id`. */
  findInvoice(key: string): SandboxInvoiceRecord | undefined {
    return this.invoices.get(key) ?? this.invoices.get(this.byInvoiceId.get(key) ?? '');
  }

  findInvoiceByInvoiceId(invoiceId: string): SandboxInvoiceRecord | undefined {
    const id = this.byInvoiceId.get(invoiceId);
    return id === undefined ? undefined : this.invoices.get(id);
  }

  /** Next value of a named sequence (1, 2, 3...), persisted. */
  next(name: string): number {
    const value = (this.counters.get(name) ?? 0) + 1;
    this.counters.set(name, value);
    this.write('counter', name, value);
    return value;
  }

  /**
   * The next invoice number. Numbers never repeat across restarts, persisted or not, nor after a reset: each is
   * above the last one this store issued and at least the real clock in milliseconds, so a sandbox restarted
   * without its data starts above every number it issued before (a client's database may still hold them).
   */
  nextInvoiceNumber(): string {
    const value = Math.max((this.counters.get(INVOICE_NUMBER) ?? 0) + 1, Date.now());
    this.counters.set(INVOICE_NUMBER, value);
    this.write('counter', INVOICE_NUMBER, value);
    return String(value);
  }

  saveInvoice(record: SandboxInvoiceRecord): void {
    this.invoices.set(record.id, record);
    this.byInvoiceId.set(record.invoiceId, record.id);
    this.write('invoice', record.id, record);
  }

  saveConsumer(record: ConsumerRecord): void {
    this.consumers.set(record.id, record);
    this.write('consumer', record.id, record);
  }

  saveDispute(record: DisputeRecord): void {
    this.disputes.set(record.id, record);
    this.write('dispute', record.id, record);
  }

  saveWebhook(record: WebhookRegistration): void {
    this.webhooks.set(record.id, record);
    this.write('webhook', record.id, record);
  }

  saveCardToken(record: CardTokenRecord): void {
    this.cardTokens.set(record.token, record);
    this.write('card', record.token, record);
  }

  saveIssuedToken(record: IssuedTokenRecord): void {
    this.issuedTokens.set(record.token, record);
    this.write('token', record.token, record);
  }

  /** Forgets everything but the webhooks kept by `keepWebhook`. */
  reset(keepWebhook: (w: WebhookRegistration) => boolean): void {
    const kept = [...this.webhooks.values()].filter(keepWebhook);
    for (const map of [this.invoices, this.consumers, this.disputes, this.webhooks, this.cardTokens])
      map.clear();
    this.issuedTokens.clear();
    this.counters.clear();
    this.byInvoiceId.clear();
    this.db?.exec('DELETE FROM sandbox_state');
    for (const w of kept) this.saveWebhook(w);
  }

  close(): void {
    this.db?.close();
  }

  private write(kind: Kind, key: string, value: unknown): void {
    this.db
      ?.prepare('INSERT OR REPLACE INTO sandbox_state (kind, key, data) VALUES (?, ?, ?)')
      .run(kind, key, JSON.stringify(value));
  }

  private load(): void {
    const rows = this.db!.prepare('SELECT kind, key, data FROM sandbox_state').all() as Array<{
      kind: Kind;
      key: string;
      data: string;
    }>;
    const invoices: SandboxInvoiceRecord[] = [];
    for (const row of rows) {
      const value: unknown = JSON.parse(row.data);
      if (row.kind === 'invoice') invoices.push(value as SandboxInvoiceRecord);
      else if (row.kind === 'consumer') this.consumers.set(row.key, value as ConsumerRecord);
      else if (row.kind === 'dispute') this.disputes.set(row.key, value as DisputeRecord);
      else if (row.kind === 'webhook') this.webhooks.set(row.key, value as WebhookRegistration);
      else if (row.kind === 'card') this.cardTokens.set(row.key, value as CardTokenRecord);
      else if (row.kind === 'token') this.issuedTokens.set(row.key, value as IssuedTokenRecord);
      else if (row.kind === 'counter') this.counters.set(row.key, value as number);
    }
    // Map order is creation order: lists rely on it.
    for (const inv of invoices.sort((a, b) => a.seq - b.seq)) {
      this.invoices.set(inv.id, inv);
      this.byInvoiceId.set(inv.invoiceId, inv.id);
    }
  }
}
