import { loadMedusaFramework } from './framework';
import { MEDUSA_PROCESS_PAYMENT_WORKFLOW, MedusaPaymentSessions, syncMedusaPayments } from './payment-sync';
import { startedInvoicePaymentsRuntimes } from './runtime';
import type { MedusaWebhookActionResult } from './types';

/** A Medusa container, as a scheduled job receives it. */
interface MedusaContainer {
  resolve<T = unknown>(key: string): T;
}

/**
 * The scheduled job a Medusa store adds (`src/jobs/invoice-payments-sync.ts`, see docs/medusa.md): every minute,
 * what the module learned without a webhook reaching Medusa (a payment found by the reconciliation after a restart,
 * an inbox retry) is run through Medusa's `processPaymentWorkflow`, so the payment is captured and the order moves.
 */
export default async function invoicePaymentsSyncJob(container: MedusaContainer): Promise<void> {
  const { Modules } = loadMedusaFramework();
  const payments = container.resolve<MedusaPaymentSessions>(Modules.PAYMENT);
  const engine = container.resolve<{ run(id: string, options: { input: unknown }): Promise<unknown> }>(
    Modules.WORKFLOW_ENGINE,
  );
  const process = (input: Required<MedusaWebhookActionResult>) =>
    engine.run(MEDUSA_PROCESS_PAYMENT_WORKFLOW, { input });
  for (const app of await startedInvoicePaymentsRuntimes()) await syncMedusaPayments(app, payments, process);
}

/** The job's schedule: every minute. */
export const config = { name: 'invoice-payments-sync', schedule: '* * * * *' };
