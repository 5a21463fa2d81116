/**
 * Fixed values of the sandbox: scopes, reported API versions, test cards, fees and the status texts it sends.
 * They describe the service as `docs/gateway-assumptions.md` pictures it, independently of the client's code.
 */

/** Every scope the sandbox knows: spec §5 plus `consumer.read` and `dispute.read` (A10). */
export const ALL_SCOPES: readonly string[] = [
  'invoice.read',
  'invoice.write',
  'invoice.update',
  'invoice.refund',
  'consumer.read',
  'dispute.read',
];

/** The bearer token a sandbox accepts when `tokens` is not given (all scopes, never expires). */
export const DEFAULT_TOKEN = 'sandbox-token';
/** Client credentials accepted by `GET /auth/token` when `clients` is not given (all scopes). */
export const DEFAULT_CLIENT_ID = 'sandbox-client';
export const DEFAULT_CLIENT_SECRET = 'sandbox-secret';
export const DEFAULT_ACCOUNT_ID = 'sandbox-account';
export const DEFAULT_GATEWAY_NAME = 'sandbox';
/** Lifetime of tokens issued by `GET /auth/token` (A5). */
export const ISSUED_TOKEN_LIFETIME_SECONDS = 3600;

/** `api.version` of the current shape (§9.2: 3.x) and of the legacy shape (1.x). */
export const CURRENT_API_VERSION = '3.4.1';
export const LEGACY_API_VERSION = '1.9.2';
export const API_UPDATED = '2025-08-01';

/** Card numbers with a fixed outcome (A12). Any other valid number is approved. */
export const TEST_CARDS = { approved: '4111111111111111', denied: '4000000000000002' } as const;

/** `payment.type` (A3). */
export const PAYMENT_TYPE = { pix: 1, billet: 2, card: 3 } as const;
/** `payment.product_type` (A3). */
export const PRODUCT_TYPE = { physical: 1, digital: 2 } as const;

/** Fees the sandbox charges, so `net` differs from `gross` as it would in production. */
export const FEES = {
  /** PIX: 0.99 % of the gross, in basis points. */
  pixBasisPoints: 99,
  /** Bank slip: a flat R$ 3,49. */
  billetCents: 349,
  /** Card: 4.99 % of the gross, in basis points. */
  cardBasisPoints: 499,
} as const;

/** Days until the due date when `payment.due_at` is not sent. */
export const DEFAULT_DUE_DAYS = 3;
/** Largest page of every list (§4.1, §8). */
export const MAX_PAGE_SIZE = 100;
/** Largest request body accepted, in bytes. */
export const MAX_BODY_BYTES = 1_000_000;
/** Most installments accepted on a card invoice. */
export const MAX_INSTALLMENTS = 12;

/**
 * Control characters the service refuses in any text (A17). The same rule as the module's `CONTROL_CHARACTERS`
 * (`src/domain/text-and-days.ts`), written out here because the sandbox imports nothing of the module; a test keeps the
 * two equal.
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\p{Cs}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
export const CONTROL_CHARACTERS_PROBLEM =
  'must not contain control characters (NUL, line breaks, tabs, ESC, bidi overrides such as U+202E)';

/** Codes with their operation rules (A8, A9, A11). */
export const DUE_DATE_CODES: readonly number[] = [1, 15];
export const CANCELLABLE_CODES: readonly number[] = [1, 2, 3, 4, 15];
export const REFUNDABLE_CODES: readonly number[] = [5, 8];
export const TRACKABLE_CODES: readonly number[] = [4, 5, 8];
/** Codes from which the `pay` control may settle an invoice. */
export const PAYABLE_CODES: readonly number[] = [1, 2, 3, 4, 15];
/** Codes from which the `contest` control may open a dispute. */
export const CONTESTABLE_CODES: readonly number[] = [5, 8];

export interface StatusText {
  text: string;
  sub_text: string;
  title: string;
  description: string;
}

/** What the sandbox says for each listed code (§3). `text` varies by acquirer in production; `code` does not. */
export const STATUS_TEXTS: Readonly<Record<number, StatusText>> = {
  1: st('pending', 'pending', 'Aguardando pagamento', 'A fatura aguarda o pagamento do cliente.'),
  2: st('processing', 'processing', 'Processando', 'O pagamento está sendo processado.'),
  3: st('scheduled', 'scheduled', 'Pagamento agendado', 'O pagamento foi agendado pelo cliente.'),
  4: st('authorized', 'authorized', 'Autorizado', 'O pagamento foi autorizado e aguarda captura.'),
  5: st('paid', 'paid', 'Pago', 'O pagamento foi confirmado.'),
  6: st('canceled', 'canceled', 'Cancelado', 'A fatura foi cancelada.'),
  7: st(
    'refund_pending',
    'awaiting_refund',
    'Aguardando estorno',
    'O estorno foi solicitado e aguarda devolução.',
  ),
  8: st(
    'partially_refunded',
    'partially_refunded',
    'Estornado parcialmente',
    'Parte do valor foi estornada.',
  ),
  9: st('refunded', 'refunded', 'Estornado', 'O valor foi estornado integralmente.'),
  10: st('contested', 'in_contestation', 'Em contestação', 'O pagamento está em contestação.'),
  12: st('denied', 'denied', 'Pagamento negado', 'O pagamento foi negado.'),
  15: st('overdue', 'expired', 'Pagamento vencido', 'A data de vencimento passou sem pagamento.'),
  16: st('error', 'error', 'Erro no pagamento', 'Ocorreu um erro ao processar o pagamento.'),
};

/** Texts for a code the spec does not list (11, 13, 14, or anything set by the `status` control). */
export function statusText(code: number): StatusText {
  return STATUS_TEXTS[code] ?? st('unknown', 'unknown', `Status ${code}`, 'Status não documentado.');
}

function st(text: string, subText: string, title: string, description: string): StatusText {
  return { text, sub_text: subText, title, description };
}
