import { DataSource, In } from 'typeorm';
import { statusIs } from '../domain/status-table';
import { InvoiceRecord } from '../persistence/invoice.entity';
import { refundView, type RefundView } from '../refunds/refund.entity';
import type { RefundService } from '../refunds/refund.service';
import type { TrackingService } from '../shipping/tracking.service';
import { toView, type AdminInvoiceView } from './admin-invoices.service';
import { InvoicePaymentsAlertRecord } from './alert.entity';

/** One invoice of an order as the hosts' order pages show it (Medusa's widget, Vendure's dashboard block). */
export interface OrderInvoiceView extends AdminInvoiceView {
  /**
   * The due date (`YYYY-MM-DD`) while the invoice waits on the customer's payment (awaiting or overdue), else `null`;
   * only then are the PIX code and image, the slip and the payment link given (else `null`).
   */
  payBy: string | null;
  pixImage: string | null;
  refunds: RefundView[];
  /** Tracking codes recorded for the invoice; `sent`: the service has it. */
  tracking: Array<{ code: string; url: string | null; status: string; sentAt: string | null }>;
  alerts: Array<{ kind: string; message: string; createdAt: string; acknowledged: boolean }>;
}

/** What {@link orderInvoiceViews} reads through: the module's own services and connection. */
export interface OrderInvoiceSources {
  dataSource: DataSource;
  refunds: Pick<RefundService, 'ledger'>;
  tracking: Pick<TrackingService, 'listForOrder'>;
}

/** An invoice no longer waiting on the payment: no way to pay it. */
const ENDED = {
  pixPayload: null,
  billetLine: null,
  billetBarcode: null,
  billetUrl: null,
  paymentUrl: null,
} as const;

/** Alerts shown per invoice: the newest. */
const ALERTS_SHOWN = 20;

/** The invoices of the host's order ids (a Vendure order's id, a Medusa order's payment sessions), newest first. */
export async function orderInvoiceViews(
  sources: OrderInvoiceSources,
  orderIds: string[],
): Promise<OrderInvoiceView[]> {
  const { dataSource, refunds, tracking } = sources;
  const records = orderIds.length
    ? await dataSource
        .getRepository(InvoiceRecord)
        .find({ where: { orderId: In(orderIds) }, order: { createdAt: 'DESC' } })
    : [];
  const views = records.map(async (record): Promise<OrderInvoiceView> => {
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
    const waitsOnPayment = statusIs(record.statusCode, 'dueDateMovable');
    return {
      ...view,
      // What pays the invoice only while it waits on the payment: the order page must not offer an operator a code or
      // slip of a paid, canceled or refunded invoice to send a customer.
      ...(waitsOnPayment ? {} : ENDED),
      payBy: waitsOnPayment ? record.dueDate : null,
      refundableCents: view.allowedActions.includes('refund') ? ledger.refundableCents : 0,
      pixImage: waitsOnPayment ? record.pixImage : null,
      refunds: ledger.refunds.map(refundView),
      tracking: codes
        .filter((t) => t.invoiceRecordId === record.id)
        .map(({ code, url, status, sentAt }) => ({
          code,
          url,
          status,
          sentAt: sentAt?.toISOString() ?? null,
        })),
      alerts: alerts.map(({ kind, message, createdAt, acknowledgedAt }) => ({
        kind,
        message,
        createdAt: createdAt.toISOString(),
        acknowledged: !!acknowledgedAt,
      })),
    };
  });
  return Promise.all(views);
}
