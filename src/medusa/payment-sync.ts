import type { INestApplicationContext } from '@nestjs/common';
import { In } from 'typeorm';
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
  /** Sessions looked at per run. Default 200. */
  batchSize?: number;
}

export interface MedusaSyncResult {
  considered: number;
  processed: number;
  errors: number;
}

/** Codes whose change Medusa hears as a webhook action it processes: authorized and paid. */
const ACTED_CODES = [InvoiceStatusCode.Authorized, InvoiceStatusCode.Paid];
const cursors = new WeakMap<INestApplicationContext, { since: Date; retry: Set<string> }>();

/**
 * Runs Medusa's `processPaymentWorkflow` (`process`) for each session whose invoice the module saw authorized or paid
 * since the last run and that Medusa does not show so yet; idempotent. `app`: a runtime `invoicePaymentsRuntime`
 * started. See docs/medusa.md, "Startup and outages".
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
  const changed = await dataSource
    .getRepository(InvoiceStatusHistory)
    .createQueryBuilder('h')
    .select('DISTINCT h.invoiceRecordId', 'recordId')
    .where('h.applied = :applied', { applied: true })
    .andWhere('h.toCode IN (:...codes)', { codes: ACTED_CODES })
    .andWhere('h.createdAt >= :since', { since: new Date(cursor.since.getTime() - 60_000).toISOString() })
    .limit(options.batchSize ?? 200)
    .getRawMany<{ recordId: string }>();
  const ids = [...new Set([...cursor.retry, ...changed.map((c) => c.recordId)])];
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
  const retry = new Set<string>();
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
  cursors.set(app, { since: started, retry });
  return result;
}
