import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { isPostgres } from '../src/persistence/dialect';
import { dataSourceOf } from '../src/persistence/typeorm-compat';

const INVOICE = 'invoice_payments_invoice';
const OUTBOX = 'invoice_payments_tracking_outbox';
const INBOX = 'invoice_payments_webhook_inbox';

/** The admin list's order and each of its filters followed by that order: a page is an index range, never a sort. */
const ORDERED: ReadonlyArray<[name: string, columns: string[]]> = [
  ['IDX_invoice_payments_invoice_created', ['created_at', 'id']],
  ['IDX_invoice_payments_invoice_status', ['status_code', 'created_at', 'id']],
  ['IDX_invoice_payments_invoice_method', ['method', 'created_at', 'id']],
  ['IDX_invoice_payments_invoice_creation', ['creation_state', 'created_at', 'id']],
];

/** The columns `q` matches by prefix (any case): order id, order number, invoice number, e-mail. */
const PREFIXED: ReadonlyArray<[name: string, column: string]> = [
  ['IDX_invoice_payments_invoice_q_order', 'order_id'],
  ['IDX_invoice_payments_invoice_q_display', 'display_id'],
  ['IDX_invoice_payments_invoice_q_gateway', 'gateway_id'],
  ['IDX_invoice_payments_invoice_q_email', 'customer_email'],
];

/**
 * The customer's name for `q` by a word's start: trigrams on PostgreSQL (with `pg_trgm` only), the name and id on
 * SQLite (a covering index its scan reads instead of the rows).
 */
const NAME = 'IDX_invoice_payments_invoice_q_name';
const OUTBOX_SENT = 'IDX_invoice_payments_tracking_outbox_sent';
/** The Operations tab's lists: a state (status) and its order, oldest first. */
const OUTBOX_LIST = 'IDX_invoice_payments_tracking_outbox_list';
const INBOX_LIST = 'IDX_invoice_payments_webhook_inbox_list';

/**
 * Indexes for a store with years of history: the admin invoice list's order and filters, the search's prefix
 * matches (an expression index on `lower(column)` with `text_pattern_ops` on PostgreSQL, `COLLATE NOCASE` on SQLite:
 * each serves its dialect's case-insensitive prefix `LIKE`), the customer's name by trigrams where PostgreSQL has
 * `pg_trgm` (created here when it is available and this role may create it; without it the name is matched by a
 * scan of the rows) or by a narrow index scan on SQLite, the retention of sent tracking rows, and the Operations
 * tab's lists of the webhook inbox and the tracking outbox (a state, oldest first).
 */
export class InvoicePaymentsScaleIndexes1763700013700 implements MigrationInterface {
  name = 'InvoicePaymentsScaleIndexes1763700013700';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = isPostgres(dataSourceOf(queryRunner));
    for (const [name, columnNames] of ORDERED) {
      await queryRunner.createIndex(INVOICE, new TableIndex({ name, columnNames }));
    }
    for (const [name, column] of PREFIXED) {
      await queryRunner.query(
        postgres
          ? `CREATE INDEX "${name}" ON ${INVOICE} (lower(${column}) text_pattern_ops)`
          : `CREATE INDEX "${name}" ON ${INVOICE} (${column} COLLATE NOCASE)`,
      );
    }
    if (!postgres) {
      // The name's words are matched by a scan of this narrow covering index, not of the wide rows.
      await queryRunner.query(`CREATE INDEX "${NAME}" ON ${INVOICE} (customer_name COLLATE NOCASE, id)`);
    } else if (await trigramsAvailable(queryRunner)) {
      await queryRunner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      // The operator class named in the extension's own schema: the database may have had pg_trgm in `public`
      // already while the search path names only the module's schema (Medusa's).
      const trigrams = await extensionSchema(queryRunner, 'pg_trgm');
      await queryRunner.query(
        `CREATE INDEX "${NAME}" ON ${INVOICE} USING gin (lower(customer_name) ${trigrams}.gin_trgm_ops)`,
      );
      // A finer sample of names: with the default (100) a last name on 2 % of the rows can be estimated at 0.01 %,
      // and the planner then sorts all its rows instead of reading the newest by the list's index.
      await queryRunner.query(`ALTER INDEX "${NAME}" ALTER COLUMN 1 SET STATISTICS 1000`);
    }
    await queryRunner.createIndex(
      OUTBOX,
      new TableIndex({ name: OUTBOX_SENT, columnNames: ['status', 'sent_at'] }),
    );
    await queryRunner.createIndex(
      OUTBOX,
      new TableIndex({ name: OUTBOX_LIST, columnNames: ['status', 'recorded_at', 'id'] }),
    );
    await queryRunner.createIndex(
      INBOX,
      new TableIndex({ name: INBOX_LIST, columnNames: ['state', 'received_at', 'id'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(INBOX, INBOX_LIST);
    await queryRunner.dropIndex(OUTBOX, OUTBOX_LIST);
    await queryRunner.dropIndex(OUTBOX, OUTBOX_SENT);
    await queryRunner.query(`DROP INDEX IF EXISTS "${NAME}"`);
    for (const [name] of PREFIXED) await queryRunner.query(`DROP INDEX "${name}"`);
    for (const [name] of ORDERED) await queryRunner.dropIndex(INVOICE, name);
  }
}

/**
 * `pg_trgm` is installed, or installable by this role: shipped with the server (`pg_available_extensions`), and
 * trusted (any role with CREATE on the database may install it) or the role is a superuser. Asked first, so a
 * refusal never aborts the migration's transaction.
 */
async function trigramsAvailable(queryRunner: QueryRunner): Promise<boolean> {
  const rows = (await queryRunner.query(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') AS installed,
            EXISTS (SELECT 1 FROM pg_available_extension_versions v WHERE v.name = 'pg_trgm'
                      AND (v.trusted OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user))
                      AND has_database_privilege(current_database(), 'CREATE')) AS installable`,
  )) as Array<{ installed: boolean; installable: boolean }>;
  return rows[0].installed || rows[0].installable;
}

/** The schema an installed extension's objects live in, quoted. */
async function extensionSchema(queryRunner: QueryRunner, extension: string): Promise<string> {
  const rows = (await queryRunner.query(
    `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = $1`,
    [extension],
  )) as Array<{ schema: string }>;
  return `"${rows[0].schema.replace(/"/g, '""')}"`;
}
