/**
 * Response envelopes of the service as tests build them (spec §4). The module reads responses through the one
 * normalizer and its readers, never through these shapes, so they live with the tests.
 */
import type { WireEnvelope, WireInvoiceCurrent, WirePagination } from '../../src/sandbox/wire.types';

/** Current-shape response to invoice creation and refund (§2.1, A8). */
export interface WireInvoiceCurrentResponse extends WireEnvelope {
  __seconds: number;
  invoice: WireInvoiceCurrent;
}

/** List invoices response (A7). */
export interface WireInvoiceListResponse extends WireEnvelope {
  invoices: WireInvoiceCurrent[];
  pagination: WirePagination;
}

/** Tracking response (A9). */
export interface WireTrackingResponse extends WireEnvelope {
  tracking: {
    invoice_id: string;
    code: string;
    carrier: string | null;
    url: string | null;
    created_at: string;
  };
}

/** Consumer record (A10). */
export interface WireConsumer {
  id: string;
  name: string;
  document: string | null;
  email: string | null;
  created_at: string;
}

/** Mediation or chargeback record (A10). */
export interface WireDispute {
  id: string;
  invoice_id: string;
  status: string;
  reason: string;
  amount: number;
  created_at: string;
}

export interface WireConsumerListResponse extends WireEnvelope {
  consumers: WireConsumer[];
  pagination: WirePagination;
}

export interface WireMediationListResponse extends WireEnvelope {
  mediations: WireDispute[];
  pagination: WirePagination;
}

export interface WireChargebackListResponse extends WireEnvelope {
  chargebacks: WireDispute[];
  pagination: WirePagination;
}
