import type { INestApplicationContext } from '@nestjs/common';
import { PaymentServiceError } from '../core/invoice.errors';
import type { PaymentWebhookAction, ProviderWebhookPayload } from '../core/checkout.types';
import {
  HOST_WEBHOOKS,
  webhookActionOf,
  webhookActionOfOutcome,
  type ConfirmedStatus,
  type HostWebhooks,
} from '../core/ports';
import { InvoicePaymentsError, type InvoicePaymentsErrorCode } from '../domain/invoice-payments.error';
import { isGatewayError, type GatewayErrorKind } from '../gateway/errors';
import { centsToWireNumber, type Cents } from '../gateway/money';
import type { InvoiceRecord } from '../persistence/invoice.entity';
import { logger, type MedusaErrorClass } from './runtime';
import type { MedusaWebhookActionResult } from './types';

/** Cents to the major-unit number Medusa takes (`1348` → `13.48`), from the exact decimal text. */
export const centsToMedusaAmount: (cents: Cents) => number = centsToWireNumber;

/** {@link webhookActionOf} in Medusa's terms: the order's session, the amount in major units. */
export function webhookActionOfRecord(
  record: InvoiceRecord,
  confirmed?: ConfirmedStatus,
): MedusaWebhookActionResult {
  const { action, data } = webhookActionOf(record, confirmed);
  return data ? inMedusaTerms(record, action, data.amount) : { action };
}

/**
 * An action for Medusa: its payment session is the order's, the amount in major units. A duplicate invoice's report
 * moves nothing (docs/checkout.md): on the order's one session it would pass for the order's own payment.
 */
function inMedusaTerms(
  record: InvoiceRecord,
  action: PaymentWebhookAction,
  amount: Cents,
): MedusaWebhookActionResult {
  if (record.duplicateOf !== null) return { action: 'not_supported' };
  return { action, data: { session_id: record.orderId, amount: centsToMedusaAmount(amount) } };
}

/** A delivery to Medusa's webhook route, through the module's own webhook path (docs/medusa.md, "Webhooks"). */
export async function webhookAction(
  app: INestApplicationContext,
  payload: ProviderWebhookPayload,
): Promise<MedusaWebhookActionResult> {
  const outcome = await app.get<HostWebhooks>(HOST_WEBHOOKS).settle(payload);
  // A delivery not settled now throws: Medusa's event bus retries the webhook event.
  const { action, data } = webhookActionOfOutcome(outcome, logger);
  if (!data || outcome.kind !== 'applied') return { action };
  return inMedusaTerms(outcome.record, action, data.amount);
}

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

/** The module's errors as `MedusaError`s by code; the service's trouble stays a `PaymentServiceError`. */
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
