/** The Admin API query of the plugin (src/vendure/admin-api.resolver.ts) and what it answers per invoice. */
export const INVOICES_QUERY = `
  query InvoicePaymentsForOrder($orderId: ID!) {
    invoicePaymentsForOrder(orderId: $orderId) {
      id method invoiceNumber statusCode statusName statusTone orderPaymentStatus currencyCode
      amount paid refunded refundable dueDate payBy installments
      card { brand last4 }
      pixPayload pixImage billetLine billetUrl paymentUrl
      refunds { id amount state }
      tracking { code status }
      alerts { kind message acknowledged }
    }
  }
`;

/** One invoice as {@link INVOICES_QUERY} answers it; amounts in the currency's minor unit (cents). */
export interface OrderInvoice {
  id: string;
  method: 'pix' | 'billet' | 'card';
  invoiceNumber: string | null;
  statusCode: number | null;
  statusName: string | null;
  statusTone: 'paid' | 'open' | 'ended' | 'expired' | null;
  orderPaymentStatus: string | null;
  currencyCode: string;
  amount: number;
  paid: number | null;
  refunded: number;
  refundable: number;
  dueDate: string | null;
  /** {@link dueDate} while the customer has yet to pay (awaiting or overdue): what the block shows. */
  payBy: string | null;
  installments: number;
  card: { brand: string | null; last4: string | null } | null;
  pixPayload: string | null;
  pixImage: string | null;
  billetLine: string | null;
  billetUrl: string | null;
  paymentUrl: string | null;
  refunds: Array<{ id: string; amount: number; state: string }>;
  tracking: Array<{ code: string; status: string }>;
  alerts: Array<{ kind: string; message: string; acknowledged: boolean }>;
}
