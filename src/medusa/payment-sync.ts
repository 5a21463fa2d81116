import type { INestApplicationContext } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { InvoiceStatusCode } from '../domain/status-table';
import { InvoiceRecord, InvoiceStatusHistory } from '../persistence/invoice.entity';
import { logger, MedusaRuntimeServices, webhookActionOfRecord } from './runtime';
import type { MedusaWebhookActionResult } from './types';

/** Medusa's `processPaymentWorkflow` id (`@medusajs/core-flows`), run through its workflow engine. */
export const MEDUSA_PROCESS_PAYMENT_WORKFLOW = 'process-payment-workflow';

/** What the sync needs of Medusa's Payment module (`container.resolve(Modules.PAYMENT)`). */
export interface MedusaPaymentSessions {
  listPaymentSessions(
    filters: { id: string[] },
    config?: { relations?: string[] },
  ): Promise<
    Array<{ id: string; status?: string | null; payment?: { id: string; captured_at?: unknown } | null }>
  >;
}

/** How the sync hands Medusa an action: Medusa's `processPaymentWorkflow` in production. */
export type ProcessMedusaPayment = (input: Required<MedusaWebhookActionResult>) => Promise<unknown>;

export interface MedusaSyncOptions {
  /** How far back the first run of a process looks for status changes. Default 259200000 (3 days). */
  lookbackMs?: number;
  /** Sessions read per page: a run reads page after page until a short one. A whole number from 1; default 200. */
  batchSize?: number;
}

export interface MedusaSyncResult {
  considered: number;
  processed: number;
  errors: number;
}

/** Codes whose change Medusa hears as a webhook action it processes: authorized and paid. */
const ACTED_CODES = [InvoiceStatusCode.Authorized, InvoiceStatusCode.Paid];
/** Rows are committed a little after their `createdAt` is read: each run reads again from a minute before the last. */
const OVERLAP_MS = 60_000;
const cursors = new WeakMap<INestApplicationContext, { since: Date; retry: Set<string> }>();

/** A record whose invoice moved to authorized or paid, at its latest such change. */
type Changed = { recordId: string; at: string };

/**
 * Runs Medusa's `processPaymentWorkflow` (`process`) for each session whose invoice the module saw authorized or paid
 * since the last run and that Medusa does not show so yet; idempotent. The records are read oldest change first, a
 * page of `batchSize` at a time, until a short page: however many changed, none is left behind, and one page is held
 * at a time. `app`: a runtime `invoicePaymentsRuntime` started. See docs/medusa.md, "Startup and outages".
 */
export async function syncMedusaPayments(
  app: INestApplicationContext,
  payments: MedusaPaymentSessions,
  process: ProcessMedusaPayment,
  options: MedusaSyncOptions = {},
): Promise<MedusaSyncResult> {
  const result: MedusaSyncResult = { considered: 0, processed: 0, errors: 0 };
  const { dataSource, clock } = app.get(MedusaRuntimeServices);
  const started = clock.date();
  const cursor = cursors.get(app) ?? {
    since: new Date(started.getTime() - (options.lookbackMs ?? 3 * 86_400_000)),
    retry: new Set<string>(),
  };
  const since = new Date(cursor.since.getTime() - OVERLAP_MS);
  const size = options.batchSize ?? 200;
  // A page of none would never come back short.
  if (!Number.isSafeInteger(size) || size < 1)
    throw new Error(`batchSize must be a whole number from 1: ${size}`);
  const retry = new Set<string>();
  const sync = (ids: string[]) => syncRecords(dataSource, payments, process, ids, result, retry);
  // Those Medusa could not process last run first, then every record changed since, page by page.
  await sync([...cursor.retry]);
  let after: Changed | undefined;
  for (;;) {
    const page = await changedSince(dataSource, since, after, size);
    await sync(page.map((row) => row.recordId).filter((id) => !cursor.retry.has(id)));
    if (page.length < size) break;
    after = page[page.length - 1];
  }
  cursors.set(app, { since: started, retry });
  return result;
}

/**
 * A page of the records with an applied change to authorized or paid since `since`, each once, in the order of its
 * latest such change (then its id), after `after`: keyset pages, stable however many rows there are.
 */
function changedSince(dataSource: DataSource, since: Date, after: Changed | undefined, size: number) {
  const latest = 'MAX(h.createdAt)';
  const query = dataSource
    .getRepository(InvoiceStatusHistory)
    .createQueryBuilder('h')
    .select('h.invoiceRecordId', 'recordId')
    .addSelect(latest, 'at')
    .where('h.applied = :applied', { applied: true })
    .andWhere('h.toCode IN (:...codes)', { codes: ACTED_CODES })
    .andWhere('h.createdAt >= :since', { since: since.toISOString() })
    .groupBy('h.invoiceRecordId');
  // Timestamps are ISO text of one length: ordered as text, they are ordered in time.
  if (after) {
    query.having(`(${latest} > :at OR (${latest} = :at AND h.invoiceRecordId > :id))`, {
      at: after.at,
      id: after.recordId,
    });
  }
  return query
    .orderBy(latest, 'ASC')
    .addOrderBy('h.invoiceRecordId', 'ASC')
    .limit(size)
    .getRawMany<Changed>();
}

/** Processes in Medusa each of these records' sessions it does not show authorized or paid yet. */
async function syncRecords(
  dataSource: DataSource,
  payments: MedusaPaymentSessions,
  process: ProcessMedusaPayment,
  ids: string[],
  result: MedusaSyncResult,
  retry: Set<string>,
): Promise<void> {
  const records = ids.length ? await dataSource.getRepository(InvoiceRecord).findBy({ id: In(ids) }) : [];
  const actions = records
    .map((record) => ({ record, action: webhookActionOfRecord(record) }))
    .filter(({ action }) => (action.action === 'captured' || action.action === 'authorized') && action.data);
  const sessions = actions.length
    ? await payments.listPaymentSessions(
        { id: actions.map(({ record }) => record.orderId) },
        { relations: ['payment'] },
      )
    : [];
  const byId = new Map(sessions.map((s) => [s.id, s]));
  for (const { record, action } of actions) {
    const session = byId.get(record.orderId);
    if (!session) continue; // not a Medusa session (another host on the same tables)
    result.considered++;
    // Already so in Medusa: a payment, captured for a paid invoice.
    if (action.action === 'captured' ? session.payment?.captured_at : session.payment) continue;
    try {
      await process(action as Required<MedusaWebhookActionResult>);
      result.processed++;
    } catch (err) {
      result.errors++;
      retry.add(record.id);
      logger.warn(
        `session ${record.orderId}: Medusa could not process "${action.action}": ${(err as Error).message}`,
      );
    }
  }
}
