import { PaymentServiceError } from '../checkout/errors';
import { InvoicePaymentsError, type InvoicePaymentsErrorCode } from '../errors/invoice-payments.error';
import { isGatewayError, type GatewayErrorKind } from '../gateway/errors';
import { statusRow, type PaymentSessionStatus } from '../core/status-table';
import type { InvoicePaymentSessionData } from '../checkout/types';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { centsToMedusaAmount } from './amounts';
import { DEFAULT_DOCUMENT_KEYS } from './order';
import type {
  MedusaPaymentAction,
  MedusaPaymentSessionStatus,
  MedusaProviderInput,
  MedusaWebhookActionResult,
} from './types';

/** What Medusa keeps on the session and the payment: the module's session data and Medusa's own session id. */
export type MedusaSessionData = InvoicePaymentSessionData & { session_id: string };

/**
 * The session data Medusa keeps (and its store API shows the storefront). Medusa stores the storefront's input
 * merged with this, so a CPF/CNPJ the storefront sent (`document`, `cpf`... any of `documentKeys`) is overwritten
 * with `null` here: the customer's document never comes back in data the storefront can read.
 */
export function medusaSessionData(
  data: InvoicePaymentSessionData,
  sessionId: string,
  input?: Record<string, unknown> | null,
  documentKeys: readonly string[] = [],
): MedusaSessionData {
  const scrubbed: Record<string, null> = {};
  for (const key of new Set([...DEFAULT_DOCUMENT_KEYS, ...documentKeys])) {
    if (input && Object.prototype.hasOwnProperty.call(input, key)) scrubbed[key] = null;
  }
  return { ...data, ...scrubbed, session_id: sessionId };
}

/**
 * The answer to `authorizePayment`: an invoice not paid yet (PIX or bank slip waiting, a card in processing) is
 * `pending_authorization`, so Medusa completes the cart with the payment awaiting and creates the payment when the
 * webhook says it is paid. Any other status is the status table's.
 */
export function authorizationStatus(status: PaymentSessionStatus): MedusaPaymentSessionStatus {
  return status === 'pending' ? 'pending_authorization' : status;
}

/** Session statuses → Medusa's webhook actions. Refunds and disputes are not session events: `not_supported`. */
const ACTIONS: Record<PaymentSessionStatus, MedusaPaymentAction> = {
  pending: 'pending',
  requires_more: 'requires_more',
  authorized: 'authorized',
  captured: 'captured',
  canceled: 'canceled',
  error: 'failed',
};

/**
 * The webhook action for Medusa's session after the delivery was applied: from the record's status as it now
 * stands (so a late, older delivery never takes a session back). `captured` only for a paid invoice (status 5);
 * refunded, partially refunded and contested invoices are `not_supported`. The amount is in major units, at most
 * the session's amount (Medusa cannot capture more than it authorized; a difference is flagged on the record).
 */
export function webhookActionOfRecord(record: InvoiceRecord): MedusaWebhookActionResult {
  const row = statusRow(record.statusCode);
  if (!row) return { action: 'not_supported' };
  const action = row.session === 'captured' && row.code !== 5 ? 'not_supported' : ACTIONS[row.session];
  const paid = record.paidCents ?? record.amountCents;
  const amount = centsToMedusaAmount(Math.min(paid, record.amountCents));
  return { action, data: { session_id: record.orderId, amount } };
}

/** Medusa's `MedusaError` constructor, as the provider loaded it. */
export type MedusaErrorClass = new (type: string, message: string) => Error;

/** Medusa's error type of each of the module's error codes that is the request's fault; the others stay errors. */
const MEDUSA_TYPES: Partial<Record<InvoicePaymentsErrorCode | GatewayErrorKind, string>> = {
  checkout_validation: 'invalid_data',
  invoice_creation_failed: 'invalid_data',
  validation: 'invalid_data',
  invoice_record_not_found: 'not_found',
  not_found: 'not_found',
  open_invoice_conflict: 'not_allowed',
  operation_not_allowed: 'not_allowed',
  // Not settled yet (also while the service cannot be asked): the operation is not allowed now.
  invoice_creation_unresolved: 'not_allowed',
  payment_being_confirmed: 'not_allowed',
  invoice_creation_needs_attention: 'not_allowed',
  invoice_number_clash: 'not_allowed',
  refund_in_progress: 'not_allowed',
  refund_being_confirmed: 'not_allowed',
  refund_failed: 'not_allowed',
  refund_repeated: 'not_allowed',
  state_conflict: 'not_allowed',
  mode: 'not_allowed',
};

/**
 * The module's errors as Medusa's, so its API answers 400/404/409 with the module's message instead of a 500, by
 * the error's code (a gateway error's `kind`): invalid input → `invalid_data`, unknown record → `not_found`, a state
 * that forbids the operation → `not_allowed`. The service's own trouble stays an error, as a `PaymentServiceError`
 * (a plain sentence; the gateway error is its `cause`).
 */
export function toMedusaError(err: unknown, MedusaError: MedusaErrorClass | undefined): unknown {
  if (!MedusaError) return err;
  const code = isGatewayError(err) ? err.kind : err instanceof InvoicePaymentsError ? err.code : null;
  const type = code ? MEDUSA_TYPES[code] : undefined;
  if (!type) return isGatewayError(err) ? new PaymentServiceError(err) : err;
  const fields =
    err instanceof InvoicePaymentsError ? (err.details.fields as Record<string, string[]>) : null;
  const detail = fields
    ? Object.entries(fields)
        .map(([field, problems]) => `${field} ${problems.join(', ')}`)
        .join('; ')
    : (err as Error).message;
  return Object.assign(new MedusaError(type, detail), { cause: err });
}

/** The module's record of a session or payment (Medusa hands back the data the provider returned). */
export function sessionOf(input: MedusaProviderInput): { data: { invoiceRecordId: string } } {
  return { data: { invoiceRecordId: input?.data?.invoiceRecordId as string } };
}

/** The data Medusa keeps: the module's session data with Medusa's session id (the record's order key). */
export function dataOf(data: InvoicePaymentSessionData): Record<string, unknown> {
  return medusaSessionData(data, data.orderId);
}
