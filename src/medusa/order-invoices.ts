import type { INestApplicationContext } from '@nestjs/common';
import { In } from 'typeorm';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { refundView, type RefundView } from '../refunds/refund.views';
import { toView, type AdminInvoiceView } from '../settings/admin-invoices.service';
import { InvoicePaymentsAlertRecord } from '../settings/alert.entity';
import { servicesOf } from './runtime';

/** One invoice of a Medusa order as the order page's widget shows it. */
export interface MedusaOrderInvoiceView extends AdminInvoiceView {
  pixImage: string | null;
  refunds: RefundView[];
  /** Tracking codes recorded for the invoice; `sent`: the service has it. */
  tracking: Array<{ code: string; url: string | null; status: string; sentAt: string | null }>;
  alerts: Array<{ kind: string; message: string; createdAt: string; acknowledged: boolean }>;
}

/** Alerts shown per invoice: the newest. */
const ALERTS_SHOWN = 20;

/** The invoices of these Medusa payment sessions (newest first), with their refunds, tracking codes and alerts. */
export async function orderInvoices(
  runtime: INestApplicationContext,
  sessionIds: string[],
): Promise<MedusaOrderInvoiceView[]> {
  if (sessionIds.length === 0) return [];
  const { dataSource, refunds, tracking } = servicesOf(runtime);
  const records = await dataSource
    .getRepository(InvoiceRecord)
    .find({ where: { orderId: In(sessionIds) }, order: { createdAt: 'DESC' } });
  return Promise.all(
    records.map(async (record) => {
      const view = toView(record);
      const [ledger, codes, alerts] = await Promise.all([
        refunds.ledger(record),
        tracking.listForOrder(record.orderId),
        dataSource.getRepository(InvoicePaymentsAlertRecord).find({
          where: { invoiceRecordId: record.id },
          order: { createdAt: 'DESC' },
          take: ALERTS_SHOWN,
        }),
      ]);
      return {
        ...view,
        refundableCents: view.allowedActions.includes('refund') ? ledger.refundableCents : 0,
        pixImage: record.pixImage,
        refunds: ledger.refunds.map(refundView),
        tracking: codes
          .filter((t) => t.invoiceRecordId === record.id)
          .map((t) => ({
            code: t.code,
            url: t.url,
            status: t.status,
            sentAt: t.sentAt?.toISOString() ?? null,
          })),
        alerts: alerts.map((a) => ({
          kind: a.kind,
          message: a.message,
          createdAt: a.createdAt.toISOString(),
          acknowledged: !!a.acknowledgedAt,
        })),
      };
    }),
  );
}
