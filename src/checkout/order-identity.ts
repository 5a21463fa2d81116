import type { CreateInvoiceParams } from '../gateway/types';
import { clip } from '../core/text-bounds';
import type { CheckoutOrder } from './types';

/** What a person recognises an order by, kept on the invoice record for the admin page (shown and searched). */
export interface RecognisedOrder {
  displayId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  /** Masked: `***.982.247-**` (CPF), `**.345.678/0001-**` (CNPJ). */
  customerDocument: string | null;
}

/**
 * A CPF or CNPJ (already without punctuation) masked for display: the first and last digits hidden, the middle
 * kept so a person can tell two customers apart. Anything else is fully hidden (`***`). `null` for none.
 */
export function maskDocument(document: string | undefined | null): string | null {
  if (!document) return null;
  if (/^\d{11}$/.test(document)) return `***.${document.slice(3, 6)}.${document.slice(6, 9)}-**`;
  if (/^[0-9A-Z]{14}$/.test(document)) {
    return `**.${document.slice(2, 5)}.${document.slice(5, 8)}/${document.slice(8, 12)}-**`;
  }
  return '***';
}

/** The value as trimmed text; `null` when absent or blank. */
function present(value: string | number | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  return text === '' ? null : text;
}

/** The order's number and customer from the checkout input and its mapped `client` (document normalized). */
export function recognisedOrder(
  order: CheckoutOrder,
  client: CreateInvoiceParams['client'],
): RecognisedOrder {
  return {
    displayId: clip(present(order.display_id), 64),
    customerName: clip(present(client.name), 160),
    customerEmail: clip(present(client.email), 254),
    customerDocument: maskDocument(client.document),
  };
}
