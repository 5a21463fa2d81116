import { cardForm, type CardSubmission } from './card-form.js';
import { h, type Child } from './dom.js';
import type { Messages } from './messages.js';
import { parseCents } from './money.js';
import { tokenizeCard } from './tokenizer.js';
import type { PayHook, PaymentView } from './types.js';

/** The service's script function when `tokenizer-function` is not set (the sandbox's, A12). */
export const DEFAULT_TOKENIZER_FUNCTION = 'invoicePaymentsTokenizeCard';
/** Most installments the service takes (A3). */
const MAX_INSTALLMENTS = 12;

export interface CardFlowContext {
  m: Messages;
  locale: string;
  view: PaymentView | null;
  pay: PayHook | null;
  /** The store's answer, for the element to follow. */
  onView(result: PaymentView | { src: string }): void;
}

/**
 * The card payment before an invoice exists: the form, then the service's script (the card goes there and nowhere
 * else), then the store's `pay` hook with the token. Errors stay on the form in the shopper's words: a field the
 * service refused is marked, a decline or an outage says so and the form is ready for another try.
 */
export function cardFlow(host: HTMLElement, c: CardFlowContext): Child[] {
  const { m } = c;
  const cents = parseCents(c.view?.amount ?? host.getAttribute('amount'));
  const tokenizerSrc = host.getAttribute('tokenizer-src');
  if (cents === null || cents === 0 || !tokenizerSrc || !c.pay) {
    return [h('p', { part: 'error', role: 'alert' }, m.cardUnavailable)];
  }
  const pay = c.pay;
  const fn = host.getAttribute('tokenizer-function') || DEFAULT_TOKENIZER_FUNCTION;
  const max = Math.min(Math.max(Number(host.getAttribute('max-installments')) || 1, 1), MAX_INSTALLMENTS);
  const currency = c.view?.currency ?? 'BRL';
  const submit = async ({ card, installments }: CardSubmission): Promise<void> => {
    form.busy(true);
    form.showError('');
    let result: PaymentView | { src: string };
    try {
      const token = await tokenizeCard(tokenizerSrc, fn, card);
      try {
        result = await pay({
          token: token.token,
          expiry: card.expiry,
          holderName: card.holderName,
          installments,
          brand: token.brand ?? null,
          last4: token.last4 ?? null,
        });
      } catch (err) {
        throw Object.assign(err instanceof Error ? err : new Error(String(err)), { fromStore: true });
      }
    } catch (err) {
      form.busy(false);
      const { code, fields, fromStore } = (err ?? {}) as {
        code?: string;
        fields?: string[];
        fromStore?: boolean;
      };
      if (!fromStore && code === 'validation_error' && fields && fields.length > 0)
        return form.showInvalid(fields);
      if (code !== 'card_declined') return form.showError(m.payError);
      form.showError(m.declined);
      form.clearCard();
      return;
    }
    c.onView(result);
  };
  const form = cardForm(m, c.locale, cents, currency, max, (s) => void submit(s));
  return [h('h2', { part: 'status', 'data-state': 'waiting', tabindex: -1 }, m.cardTitle), form.element];
}
