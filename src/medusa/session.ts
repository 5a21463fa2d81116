import { HttpException } from '@nestjs/common';
import { InvoiceCreationUnresolvedError } from '../checkout/errors';
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

/**
 * The module's errors as Medusa's, so its API answers 400/404/409 with the module's message instead of a 500:
 * invalid input → `invalid_data`, unknown record → `not_found`, a state that forbids the operation → `not_allowed`.
 */
export function toMedusaError(err: unknown, MedusaError: MedusaErrorClass | undefined): unknown {
  if (!MedusaError || !(err instanceof HttpException)) return err;
  const status = err.getStatus();
  const type =
    status === 400 || status === 422
      ? 'invalid_data'
      : status === 404
        ? 'not_found'
        : status === 409 || err instanceof InvoiceCreationUnresolvedError // 503 while the service cannot be asked
          ? 'not_allowed'
          : null;
  if (!type) return err;
  const response = err.getResponse() as { fields?: Record<string, string[]> } | string;
  const fields = typeof response === 'object' && response?.fields ? response.fields : null;
  const detail = fields
    ? Object.entries(fields)
        .map(([field, problems]) => `${field} ${problems.join(', ')}`)
        .join('; ')
    : err.message;
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
