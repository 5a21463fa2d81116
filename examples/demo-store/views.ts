import * as QRCode from 'qrcode';
import type { InvoicePaymentSessionData } from '../../src/index';
import type { DemoOrder, OrderAddress, OrderCustomer, OrderItem, OrderPaymentEvent } from './order.entity';

/** An order as the storefront and admin APIs return it (Medusa-style snake case, cents). */
export interface OrderView {
  id: string;
  display_id: number;
  status: DemoOrder['status'];
  payment_status: DemoOrder['paymentStatus'];
  fulfillment_status: DemoOrder['fulfillmentStatus'];
  currency_code: string;
  items: OrderItem[];
  customer: OrderCustomer;
  shipping_address: OrderAddress | null;
  billing_address: OrderAddress | null;
  subtotal: number;
  shipping_total: number;
  discount_total: number;
  total: number;
  refunded_total: number;
  payment_method: DemoOrder['paymentMethod'];
  /** The payment module's session (invoice record) of the current attempt. */
  payment_session_id: string | null;
  payment_events: OrderPaymentEvent[];
  tracking: { code: string; carrier: string | null; url: string | null; shipped_at: string | null } | null;
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** What the storefront shows to get paid: the PIX code and QR image, the bank-slip line and link, or the card. */
export interface PaymentView {
  session_id: string;
  /** The service's invoice number. */
  invoice_number: string | null;
  method: 'pix' | 'billet' | 'card';
  status: InvoicePaymentSessionData['sessionStatus'];
  status_code: number | null;
  amount: number;
  due_date: string | null;
  installments: number;
  pix: { copy_paste: string | null; qr_code_url: string | null; qr_code_data_url: string | null } | null;
  billet: { line: string | null; barcode: string | null; url: string | null } | null;
  card: { brand: string | null; last4: string | null } | null;
  payment_url: string | null;
  /**
   * The shopper's status route for `<invoice-payment src>` (the module's, by the session's status token); null when
   * the module handed no token (a resumed payment: the page that started it has it).
   */
  status_url: string | null;
}

export function toOrderView(o: DemoOrder): OrderView {
  return {
    id: o.id,
    display_id: o.displayId,
    status: o.status,
    payment_status: o.paymentStatus,
    fulfillment_status: o.fulfillmentStatus,
    currency_code: o.currencyCode,
    items: o.items,
    customer: o.customer,
    shipping_address: o.shippingAddress,
    billing_address: o.billingAddress,
    subtotal: o.subtotal,
    shipping_total: o.shippingTotal,
    discount_total: o.discountTotal,
    total: o.total,
    refunded_total: o.refundedTotal,
    payment_method: o.paymentMethod,
    payment_session_id: o.invoiceRecordId,
    payment_events: o.paymentEvents,
    tracking: o.trackingCode
      ? { code: o.trackingCode, carrier: o.carrier, url: o.trackingUrl, shipped_at: o.shippedAt }
      : null,
    canceled_at: o.canceledAt,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
  };
}

/** The session data of the payment module, as the storefront needs it; the QR image is drawn here as a data URL. */
export async function toPaymentView(s: InvoicePaymentSessionData): Promise<PaymentView> {
  const payload = s.pix?.payload ?? null;
  return {
    session_id: s.invoiceRecordId,
    invoice_number: s.gatewayId,
    method: s.method,
    status: s.sessionStatus,
    status_code: s.statusCode,
    amount: s.amountCents,
    due_date: s.dueDate,
    installments: s.installments,
    pix: s.pix
      ? {
          copy_paste: payload,
          qr_code_url: s.pix.image,
          qr_code_data_url: payload ? await QRCode.toDataURL(payload, { margin: 1 }) : null,
        }
      : null,
    billet: s.billet,
    card: s.card,
    payment_url: s.paymentUrl,
    status_url: s.statusToken ? `/invoice-payments/payments/${s.statusToken}` : null,
  };
}
