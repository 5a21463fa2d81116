/**
 * The scale bench's stores: a database per store size, made by the module's migrations and filled with set-based SQL
 * (`generate_series` on PostgreSQL, a recursive CTE on SQLite), never row by row. A store looks like a few years of
 * a shop: invoices over three years (paid, canceled, refunded, a few denied), about 2.8 status-history rows, 1.4
 * processed webhook-inbox rows and 0.375 sent tracking rows per invoice. The inbox and tracking rows are kept inside
 * their retention (the last 29 days), so a run measures the store, not a purge; the purge of an old backlog is
 * measured on its own (`insertInboxBacklog`).
 */
import { DataSource } from 'typeorm';
import { INVOICE_PAYMENTS_ENTITIES, INVOICE_PAYMENTS_MIGRATIONS } from '../src/index';

export type SeedDialect = 'postgres' | 'sqlite';

const FIRST = [
  'Maria',
  'José',
  'Ana',
  'João',
  'Antônio',
  'Francisca',
  'Carlos',
  'Paulo',
  'Lucas',
  'Luiza',
  'Pedro',
  'Juliana',
  'Marcos',
  'Fernanda',
  'Rafael',
  'Patrícia',
  'Gabriel',
  'Aline',
  'Bruno',
  'Camila',
];
const LAST = [
  'Silva',
  'Santos',
  'Oliveira',
  'Souza',
  'Rodrigues',
  'Ferreira',
  'Alves',
  'Pereira',
  'Lima',
  'Gomes',
  'Costa',
  'Ribeiro',
  'Martins',
  'Carvalho',
  'Almeida',
  'Lopes',
  'Soares',
  'Fernandes',
  'Vieira',
  'Barbosa',
  'Rocha',
  'Dias',
  'Nascimento',
  'Andrade',
  'Moreira',
  'Nunes',
  'Marques',
  'Machado',
  'Mendes',
  'Freitas',
  'Cardoso',
  'Ramos',
  'Gonçalves',
  'Santana',
  'Teixeira',
  'Prado',
  'Moura',
  'Castro',
  'Pinto',
  'Reis',
];

/** The seeded invoice `g` (1..n): its id, order number and customer, for the bench's lookups. */
export function seededInvoice(g: number): { id: string; displayId: string; name: string; email: string } {
  const first = FIRST[g % FIRST.length];
  const last = LAST[Math.floor(g / FIRST.length) % LAST.length];
  return {
    id: seededId(g),
    displayId: String(100_000 + g),
    name: `${first} ${last}`,
    email: `${ascii(first)}.${ascii(last)}${g}@example.com`.toLowerCase(),
  };
}

function seededId(g: number): string {
  const hex = g.toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${hex}`;
}

function ascii(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** Three years of invoices end at this instant; the newest inbox and tracking rows a day before it. */
export function seedEnd(): Date {
  return new Date(Date.now() - 86_400_000);
}

/** Opens (migrating) the store's database; the caller closes it. */
export async function openStore(dialect: SeedDialect, location: string): Promise<DataSource> {
  const dataSource = new DataSource({
    ...(dialect === 'postgres'
      ? { type: 'postgres' as const, url: location }
      : { type: 'better-sqlite3' as const, database: location }),
    entities: [...INVOICE_PAYMENTS_ENTITIES],
    migrations: [...INVOICE_PAYMENTS_MIGRATIONS],
    migrationsRun: true,
    logging: false,
  });
  return dataSource.initialize();
}

/** SQL pieces that differ between the dialects. */
function dialectOf(dialect: SeedDialect) {
  const pg = dialect === 'postgres';
  return {
    /** ISO-8601 text of `seconds` after the epoch. */
    iso: (seconds: string) =>
      pg
        ? `to_char(to_timestamp(${seconds}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
        : `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`,
    hex12: (n: string) => (pg ? `lpad(to_hex(${n}), 12, '0')` : `printf('%012x', ${n})`),
    series: (n: number) =>
      pg
        ? `generate_series(1, ${n}) AS s(g)`
        : `(WITH RECURSIVE c(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM c WHERE g < ${n}) SELECT g FROM c) AS s`,
    arr: (values: string[], index: string) =>
      pg
        ? `(ARRAY[${values.map((v) => `'${v}'`).join(',')}])[1 + (${index})]`
        : `(CASE ${index} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(' ')} END)`,
    lower: (s: string) => (pg ? `lower(${s})` : `lower(${s})`),
    int: (e: string) => (pg ? `(${e})::bigint` : `CAST(${e} AS INTEGER)`),
    true: pg ? 'true' : '1',
    false: pg ? 'false' : '0',
  };
}

/**
 * Fills an empty store with `n` invoices and their history, inbox and tracking rows (set-based), then has the
 * database gather its statistics (as autovacuum does in a live store).
 */
export async function seedStore(dataSource: DataSource, dialect: SeedDialect, n: number): Promise<void> {
  const d = dialectOf(dialect);
  const end = Math.floor(seedEnd().getTime() / 1000);
  const span = 3 * 365 * 86_400;
  // Invoice g was created at start + g * step: the newest is the last.
  const created = `(${end - span} + s.g * ${(span / n).toFixed(6)})`;
  const first = d.arr(FIRST, `s.g % ${FIRST.length}`);
  const last = d.arr(LAST, `(s.g / ${FIRST.length}) % ${LAST.length}`);
  const firstAscii = d.arr(FIRST.map(ascii), `s.g % ${FIRST.length}`);
  const lastAscii = d.arr(LAST.map(ascii), `(s.g / ${FIRST.length}) % ${LAST.length}`);
  const id = `'00000000-0000-4000-8000-' || ${d.hex12('s.g')}`;
  // Paid 70 %, canceled 20 %, refunded 8 %, denied 2 %.
  const status = `(CASE WHEN s.g % 50 < 35 THEN 5 WHEN s.g % 50 < 45 THEN 6 WHEN s.g % 50 < 49 THEN 9 ELSE 12 END)`;
  const snapshot = `'{"id":"inv_' || s.g || '","status":{"code":' || ${status} || '},"payment":{"referrer":"bench:' || s.g || '","items":[{"description":"Camiseta básica algodão","quantity":2,"price":"49.90"},{"description":"Frete","quantity":1,"price":"15.00"}]},"customer":{"name":"masked"},"notes":"${'x'.repeat(400)}"}'`;
  await dataSource.query(`
    INSERT INTO invoice_payments_invoice (id, order_id, open_order_id, attempt, referrer, creation_state, method,
      gateway_id, gateway_uuid, gateway_invoice_id, status_code, status_text, currency, amount_cents, gross_cents,
      paid_cents, refunded_cents, amount_mismatch, pix_payload, due_date, installments, display_id, customer_name,
      customer_email, customer_document, next_check_at, raw_snapshot, created_at, updated_at, version)
    SELECT ${id}, 'order_' || s.g, NULL, 1, 'bench:' || s.g, 'created', ${d.arr(['pix', 'billet', 'card'], 's.g % 3')},
      'inv_' || s.g, 'uuid_' || s.g, 'invid_' || s.g, ${status}, 'status', 'BRL', 11480, 11480,
      CASE WHEN ${status} IN (5, 9) THEN 11480 ELSE NULL END, CASE WHEN ${status} = 9 THEN 11480 ELSE 0 END,
      ${d.false}, NULL, substr(${d.iso(created)}, 1, 10), 1, '' || (100000 + s.g),
      ${first} || ' ' || ${last},
      ${d.lower(`${firstAscii} || '.' || ${lastAscii} || s.g || '@example.com'`)},
      '***.982.247-**', '9999-12-31T00:00:00.000Z', ${snapshot}, ${d.iso(created)}, ${d.iso(created)}, 1
    FROM ${d.series(n)}`);
  // Created, then paid or canceled (2 rows), and a third for four in five: 2.8 a record on average.
  for (const [k, from, to, where] of [
    [1, 'NULL', '1', '1 = 1'],
    [2, '1', `${status}`, '1 = 1'],
    [3, '5', '5', 's.g % 5 <> 0'],
  ] as const) {
    await dataSource.query(`
      INSERT INTO invoice_payments_status_history (id, invoice_record_id, from_code, to_code, status_text, source,
        applied, note, notified_at, notify_attempts, created_at)
      SELECT '0000000${k}-0000-4000-8000-' || ${d.hex12('s.g')}, ${id}, ${from}, ${to}, 'status', 'webhook',
        ${d.true}, NULL, ${d.iso(`${created} + ${k * 60}`)}, 1, ${d.iso(`${created} + ${k * 60}`)}
      FROM ${d.series(n)} WHERE ${where}`);
  }
  // The inbox and the outbox: rows finished within their retention, spread over the last 29 days.
  const recent = (per: string) => `(${end} - (s.g % ${29 * 86_400}) - ${per})`;
  const inbox = Math.round(n * 1.4);
  await dataSource.query(`
    INSERT INTO invoice_payments_webhook_inbox (id, dedupe_key, event, delivery_id, gateway_id, status_code, payload,
      state, attempts, outcome, invoice_record_id, received_at, processed_at)
    SELECT '0000000a-0000-4000-8000-' || ${d.hex12('s.g')}, 'bench:' || s.g, 'invoice.update', 'dlv_' || s.g,
      'inv_' || (1 + s.g % ${n}), 5, '{"event":"invoice.update","invoice":{"id":"inv_' || (1 + s.g % ${n}) || '"}}',
      'processed', 1, 'applied', NULL, ${d.iso(recent('1'))}, ${d.iso(recent('0'))}
    FROM ${d.series(inbox)}`);
  const tracking = Math.round(n * 0.375);
  await dataSource.query(`
    INSERT INTO invoice_payments_tracking_outbox (id, order_id, code, carrier, url, invoice_record_id,
      gateway_invoice_id, status, attempts, next_attempt_at, locked_until, locked_by, recorded_at, sent_at,
      created_at, updated_at)
    SELECT '0000000b-0000-4000-8000-' || ${d.hex12('s.g')}, 'order_' || s.g, 'BR' || s.g || 'BR', 'Correios', NULL,
      ${id}, 'invid_' || s.g, 'sent', 1, ${d.iso(recent('1'))}, NULL, NULL, ${d.iso(recent('2'))},
      ${d.iso(recent('0'))}, ${d.iso(recent('2'))}, ${d.iso(recent('0'))}
    FROM ${d.series(tracking)}`);
  await dataSource.query(dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE');
}

/**
 * Adds `count` processed inbox rows older than the retention (a year old): the backlog a first start after an
 * upgrade purges. Their ids start with `0000000c`.
 */
export async function insertInboxBacklog(
  dataSource: DataSource,
  dialect: SeedDialect,
  count: number,
): Promise<void> {
  const d = dialectOf(dialect);
  const old = `(${Math.floor(Date.now() / 1000) - 365 * 86_400} - s.g)`;
  await dataSource.query(`
    INSERT INTO invoice_payments_webhook_inbox (id, dedupe_key, event, delivery_id, gateway_id, status_code, payload,
      state, attempts, outcome, received_at, processed_at)
    SELECT '0000000c-0000-4000-8000-' || ${d.hex12('s.g')}, 'backlog:' || s.g, 'invoice.update', 'old_' || s.g,
      'inv_' || s.g, 5, '{"event":"invoice.update"}', 'processed', 1, 'applied', ${d.iso(old)}, ${d.iso(old)}
    FROM ${d.series(count)}`);
}

/** A store ready for the bench: its DataSource (migrated) and how it was had. */
export interface PreparedStore {
  dataSource: DataSource;
  /** Seconds the seed took, `null` when an earlier run's seed was reused. */
  seededSeconds: number | null;
}

/**
 * The PostgreSQL store `name` with `n` invoices: reused when an earlier run seeded it with the same `n` (the
 * `bench_scale_seed` marker; `BENCH_SCALE_RESEED=1` seeds again), else created and seeded.
 */
export async function preparePostgresStore(
  adminUrl: string,
  name: string,
  n: number,
): Promise<PreparedStore> {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const reseed = process.env.BENCH_SCALE_RESEED === '1';
  if (!reseed) {
    const existing = await openStore('postgres', url.toString()).catch(() => null);
    if (existing) {
      const marker = (await existing.query('SELECT n FROM bench_scale_seed').catch(() => [])) as Array<{
        n: number;
      }>;
      if (marker[0] && Number(marker[0].n) === n) return { dataSource: existing, seededSeconds: null };
      await existing.destroy();
    }
  }
  const admin = new DataSource({ type: 'postgres', url: adminUrl });
  await admin.initialize();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.destroy();
  const dataSource = await openStore('postgres', url.toString());
  const started = performance.now();
  await seedStore(dataSource, 'postgres', n);
  const seededSeconds = (performance.now() - started) / 1000;
  await dataSource.query('CREATE TABLE bench_scale_seed (n integer NOT NULL, seconds numeric NOT NULL)');
  await dataSource.query('INSERT INTO bench_scale_seed (n, seconds) VALUES ($1, $2)', [n, seededSeconds]);
  return { dataSource, seededSeconds };
}
