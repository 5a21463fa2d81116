/**
 * `nestjs-invoice-payments/storefront`: the shopper's payment screen as a standard custom element,
 * `<invoice-payment>`, with no dependency. Importing this module registers the element (in a browser; on a server
 * it only exports the class). See docs/storefront.md.
 */
import { InvoicePaymentElement } from './element.js';

export { InvoicePaymentElement };
export { DEFAULT_TOKENIZER_FUNCTION } from './card-flow.js';
export type * from './types.js';

/** The element's tag name. */
export const TAG_NAME = 'invoice-payment';

if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) {
  customElements.define(TAG_NAME, InvoicePaymentElement);
}

declare global {
  interface HTMLElementTagNameMap {
    'invoice-payment': InvoicePaymentElement;
  }
}
