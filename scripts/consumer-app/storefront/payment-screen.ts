// The store's own page code in the same app (docs/storefront.md): the shopper's payment screen from the package's
// `storefront` entry, the element's class and the types of what it reads. Only type-checked (module commonjs, which
// resolves through `typesVersions`, and nodenext, through `exports`): a broken entry for `./storefront` fails here.
// Its own program, with the DOM's types, which the server's sources above must not need.
import { InvoicePaymentElement, TAG_NAME } from 'nestjs-invoice-payments/storefront';
import type { PaymentSource, PaymentView } from 'nestjs-invoice-payments/storefront';

/** Shows the payment of a page whose view the store already has, and answers the element. */
export function showPayment(parent: HTMLElement, view: PaymentView): InvoicePaymentElement {
  const source: PaymentSource = { load: () => Promise.resolve(view) };
  // The tag is in HTMLElementTagNameMap (the entry's global declaration): no cast.
  const element = document.createElement(TAG_NAME);
  element.source = source;
  parent.append(element);
  return element;
}

/** Whether the page registered the element (importing the entry does it in a browser). */
export const registered = (): boolean => customElements.get(TAG_NAME) === InvoicePaymentElement;
