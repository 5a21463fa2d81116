/**
 * The service's answers as the sandbox renders them, field for field as the spec writes them (§2, §4) plus the
 * conventions of `docs/gateway-assumptions.md` (A-numbers below): amounts as sent, never cents. The client reads
 * answers through its one normalizer and readers, never through these shapes, so they are the sandbox's own.
 */

/** `api` block of every envelope (§9.1). */
export interface WireApiInfo {
  by: string;
  version: string;
  updated: string;
}

/** Fields every response envelope carries (§2.1, §7.1). */
export interface WireEnvelope {
  date: string;
  success: boolean;
  error: boolean;
  type: string;
  api: WireApiInfo;
}

/** Status block of the current shape (§2.1). `code` is the field to rely on. */
export interface WireStatus {
  text: string;
  sub_text: string;
  code: number;
  title: string;
  description: string;
  details: unknown | null;
}

export interface WirePix {
  image: string | null;
  payload: string | null;
  status: string | null;
  ete: { id: string | null; refund_id: string | null };
}

export interface WireRefunds {
  possbile: boolean | null;
  total: number | null;
  brl: string | null;
  data: string | null;
}

/** `invoice` object of the current shape (§2.1, reported version 3.x). */
export interface WireInvoiceCurrent {
  currency: string;
  id: string;
  uuid: string;
  invoice_id: string;
  token: string;
  referrer: string;
  card: {
    type: string | null;
    tid: string | null;
    token: string | null;
    bin: string | null;
    last4: string | null;
    number: string | null;
    brand: string | null;
    acquirer: string | null;
    expire: string | null;
    holder: { name: string | null; document: string | null };
  };
  created_at: string;
  due_at: { day: string; original: string };
  links: { url: string | null };
  installments: string;
  products: Array<{
    image: string;
    description: string;
    quantity: number;
    discount: string;
    price_cents: number;
  }>;
  customer: { id: string };
  subscription: { id: string | null };
  secure: { id: string | null; url: string | null };
  amount: { gross: number; net: number; fees: number; discount: number; shipping: string };
  pix: WirePix;
  billet: { line: string; barcode: string; download: string | null; image: string } | null;
  payment: {
    total: number | string | null;
    fees: number | string | null;
    dates: { system: string | null; customer: string | null; captured: string | null };
  };
  split: { id: string | null; rules: unknown | null };
  refunds: WireRefunds;
  /** The last tracking code accepted for the invoice (A9), `null` before any; the spec does not show it. */
  tracking?: { code: string; carrier: string | null; url: string | null; created_at: string } | null;
  webhook: unknown | null;
  status: WireStatus;
}

/** `fatura` object of the legacy shape (§2.2, reported version 1.x). */
export interface WireFatura {
  moeda: string;
  id: string;
  /** Present (as a number) in the due-date response, absent in the cancellation response. */
  uuid?: number;
  invoice_id: string;
  token: string | null;
  cartao: {
    tid: string | null;
    token: string | null;
    bin: string | null;
    numero: string | null;
    bandeira: string | null;
  };
  criacao: string;
  vencimento: { dia: string; original: string };
  assinatura: { id: string | null };
  secure: { id: string | null; url: string | null };
  parcelas: number;
  produtos: Array<{
    id: string;
    description: string;
    price_cents: number;
    quantity: number;
    created_at: string;
    updated_at: string;
    price: string;
  }>;
  cliente: { id: string; name: string; external: string | null };
  externo: { url: string; fatura: string; bankSlipUrl: string };
  /** Types not shown in the spec; the sandbox sends decimal strings (A1). */
  valores: {
    bruto: number | string;
    liquido: number | string;
    original: number | string;
    juros: number | string;
    desconto: number | string;
    taxas: number | string;
  };
  pix: WirePix;
  billet: unknown | null;
  /** The cancellation response carries only `text`. */
  status: Partial<WireStatus> & { text: string };
  pagamento: {
    total: number | string | null;
    taxas: number | string | null;
    datas: { sistema: string | null; cliente: string | null; capturado: string | null };
  };
  nossoNumero: string;
  referencia: string;
  split: { id: string | null; rules: unknown | null };
  refunds: { possbile: boolean | null; total: number; brl: string; data: string | null };
}

/** Legacy-shape response to due-date change and cancellation (§2.2). */
export interface WireInvoiceLegacyResponse {
  date: string;
  success: boolean;
  error: boolean;
  type: string;
  tipo: string;
  api: WireApiInfo;
  /** Cancellation response only. */
  req?: unknown | null;
  fatura: WireFatura;
}

/** Page block of list responses (A7). */
export interface WirePagination {
  page: number;
  limit: number;
  total: number;
  pages: number;
}

/** Error body (A6). */
export interface WireErrorBody extends Partial<WireEnvelope> {
  code?: string;
  message?: string;
  errors?: Record<string, string[]>;
  required_scope?: string;
  status_code?: number;
}

/** Address of `client.address` (§4.2). */
export interface WireAddress {
  street: string;
  number: string;
  district: string;
  city: string;
  /** Two-letter state (UF for Brazil). */
  state: string;
  /** Digits only. */
  zipcode: string;
  /** ISO 3166-1 alpha-3. */
  country: string;
}

/** Resend webhook response (§4.8). */
export interface WireResendWebhookResponse {
  success: boolean;
  sent: {
    event: string;
    total: number;
    responses: Array<{
      events: string;
      webhook: string;
      response: {
        action: string;
        details: {
          raw_response: boolean;
          json_response: unknown | null;
          http: number;
          headers: string[];
        };
      };
      update: string;
      version: string;
    }>;
  };
}

/** Body of a webhook delivery (A13). */
export interface WireWebhookDelivery {
  event: string;
  delivery_id: string;
  webhook: string;
  sent_at: string;
  test?: boolean;
  invoice: WireInvoiceCurrent | null;
}
