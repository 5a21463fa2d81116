import { DataSource } from 'typeorm';
import { InvoiceRecord, InvoiceRefund } from '../../src/index';
import { startSandbox, type SandboxServer } from '../../src/sandbox';
import { checkout, makeOrder, RewritingProxy, startRewritingProxy, waitFor } from '../checkout/support';
import type { DatabaseKind, TestDatabase } from '../support/databases';
import { AdminApp, AdminAppOptions, newKey, openAdminDatabase, startAdminApp } from '../settings/support';

export const A = '/admin/invoice-payments';

/**
 * Two app instances of one store on one database (two pools on PostgreSQL; one shared connection on SQLite, the
 * supported set-up there) and a sandbox that counts every refund request (`PUT /invoices`) it answers.
 */
export interface RefundRig {
  db: TestDatabase;
  sandbox: SandboxServer;
  apps: AdminApp[];
  /** Refund requests the sandbox answered (a hung one is counted by its invoice's `refunds` instead). */
  refundRequests(): number;
  /** A paid PIX invoice of a new order (paid by webhook), by its local id and number. */
  paidInvoice(): Promise<{ id: string; gatewayId: string; orderId: string }>;
  record(id: string): Promise<InvoiceRecord>;
  ledger(id: string): Promise<InvoiceRefund[]>;
  /** Refunds the sandbox made for the invoice. */
  madeAtService(gatewayId: string): number;
  close(): Promise<void>;
}

export async function startRefundRig(kind: DatabaseKind, options: AdminAppOptions = {}): Promise<RefundRig> {
  const lines: string[] = [];
  const sandbox = await startSandbox({ log: (line) => lines.push(line) });
  const db = await openAdminDatabase(kind);
  const second = kind === 'postgres' ? await new DataSource(db.options).initialize() : db.dataSource;
  const keys = { encryption: { keys: { k1: newKey() } } };
  const apps = [
    await startAdminApp(db, sandbox, { admin: keys, ...options }),
    await startAdminApp({ ...db, dataSource: second }, sandbox, { admin: keys, ...options }),
  ];
  const record = (id: string) => db.dataSource.getRepository(InvoiceRecord).findOneByOrFail({ id });
  return {
    db,
    sandbox,
    apps,
    refundRequests: () => lines.filter((l) => l.startsWith('PUT /invoices ')).length,
    async paidInvoice() {
      const order = makeOrder();
      const out = await apps[0].provider.initiatePayment(checkout(order, 'pix'));
      const gatewayId = out.data.gatewayId as string;
      await sandbox.controls.pay(gatewayId);
      // Applied through the provider's read-back: the test does not depend on webhook delivery.
      await apps[0].provider.retrievePayment({ data: { invoiceRecordId: out.id } });
      await waitFor(async () => (await record(out.id)).statusCode === 5, 10_000, 'paid');
      return { id: out.id, gatewayId, orderId: order.id };
    },
    record,
    ledger: (id) =>
      db.dataSource
        .getRepository(InvoiceRefund)
        .find({ where: { invoiceRecordId: id }, order: { createdAt: 'ASC' } }),
    madeAtService: (gatewayId) => sandbox.controls.getInvoice(gatewayId)?.refunds.length ?? -1,
    async close() {
      for (const app of apps) await app.close();
      if (kind === 'postgres' && second.isInitialized) await second.destroy();
      await sandbox.close();
      await db.destroy();
    },
  };
}

/** A real HTTP hop in front of the sandbox that lets `rewrite` change every JSON answer to a GET. */
export function startReadRewritingProxy(
  target: string,
  rewrite: (json: Record<string, unknown>) => void,
): Promise<RewritingProxy> {
  return startRewritingProxy<Record<string, unknown>>(target, rewrite, 'GET');
}
