import { h } from './dom.js';
import type { Messages } from './messages.js';
import { formatMoney, installmentsOf } from './money.js';
import type { CardInput } from './types.js';

type Field = keyof Messages['fieldInvalid'];
const FIELDS: readonly Field[] = ['holder', 'number', 'expiry', 'cvv'];

/** What the form hands over on submit: the card for the service's script, and the installments for the store. */
export interface CardSubmission {
  card: CardInput;
  installments: number;
}

export interface CardForm {
  element: HTMLFormElement;
  /** Shows the fields the service refused, focusing the first. */
  showInvalid(fields: readonly string[]): void;
  /** The form's alert (a decline, an error); '' clears it. */
  showError(text: string): void;
  busy(on: boolean): void;
  /** Empties the number and the security code (after a decline) and puts the cursor on the number. */
  clearCard(): void;
}

/**
 * The card form: holder, number, expiry, CVV and installments, each with its label and error, checked in the browser
 * before anything is sent. The form never submits anywhere: `onSubmit` gets the card, which goes only to the
 * service's tokenization script.
 */
export function cardForm(
  m: Messages,
  locale: string,
  totalCents: number,
  currency: string,
  maxInstallments: number,
  onSubmit: (s: CardSubmission) => void,
): CardForm {
  const money = (cents: number) => formatMoney(cents, currency, locale);
  const input = (field: Field, label: string, attrs: Record<string, string | number>) => {
    const id = `card-${field}`;
    const el = h('input', {
      id,
      name: field,
      part: 'input',
      required: true,
      'aria-describedby': `${id}-error`,
      ...attrs,
    });
    const row = h(
      'div',
      { part: 'field' },
      h('label', { for: id }, label),
      el,
      h('p', { id: `${id}-error`, part: 'field-error' }),
    );
    return { el, row };
  };
  const holder = input('holder', m.holderName, {
    autocomplete: 'cc-name',
    maxlength: 80,
    autocapitalize: 'characters',
  });
  const number = input('number', m.cardNumber, {
    autocomplete: 'cc-number',
    inputmode: 'numeric',
    maxlength: 23,
  });
  const expiry = input('expiry', m.expiry, {
    autocomplete: 'cc-exp',
    inputmode: 'numeric',
    maxlength: 5,
    placeholder: m.expiryHint,
  });
  const cvv = input('cvv', m.cvv, { autocomplete: 'cc-csc', inputmode: 'numeric', maxlength: 4 });
  const inputs: Record<Field, HTMLInputElement> = {
    holder: holder.el,
    number: number.el,
    expiry: expiry.el,
    cvv: cvv.el,
  };
  const select = h('select', { id: 'card-installments', part: 'input' });
  for (let n = 1; n <= maxInstallments; n++) {
    const { first, rest } = installmentsOf(totalCents, n);
    select.appendChild(
      h('option', { value: n }, m.installment(n, money(rest), first === rest ? null : money(first))),
    );
  }
  const error = h('p', { part: 'error', role: 'alert' });
  const submit = h('button', { part: 'button submit', type: 'submit' }, m.payCard(money(totalCents)));
  const form = h(
    'form',
    { part: 'form', novalidate: true },
    holder.row,
    number.row,
    h('div', { class: 'row' }, expiry.row, cvv.row),
    maxInstallments > 1 &&
      h('div', { part: 'field' }, h('label', { for: 'card-installments' }, m.installments), select),
    error,
    submit,
  );
  const setError = (field: Field, text: string) => {
    inputs[field].setAttribute('aria-invalid', String(text !== ''));
    form.querySelector(`#card-${field}-error`)!.textContent = text;
  };
  const showInvalid = (fields: readonly string[]) => {
    const bad = FIELDS.filter((f) => fields.includes(f));
    for (const f of FIELDS)
      setError(f, bad.includes(f) ? (inputs[f].value.trim() ? m.fieldInvalid[f] : m.fieldRequired) : '');
    if (bad.length > 0) inputs[bad[0]].focus();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const card = read(inputs);
    const bad = FIELDS.filter((f) => card[f] === null);
    showInvalid(bad);
    if (bad.length > 0) return;
    const { holder: holderName, number: num, expiry: exp, cvv: code } = card as Record<Field, string>;
    onSubmit({
      card: { holderName, number: num, expiry: exp, cvv: code },
      installments: Number(select.value) || 1,
    });
  });
  return {
    element: form,
    showInvalid,
    showError: (text) => void (error.textContent = text),
    clearCard() {
      inputs.number.value = '';
      inputs.cvv.value = '';
      inputs.number.focus();
    },
    busy(on) {
      submit.disabled = on;
      submit.textContent = on ? m.paying : m.payCard(money(totalCents));
      form.setAttribute('aria-busy', String(on));
    },
  };
}

/** Each field checked and normalized; null for a bad one. */
function read(inputs: Record<Field, HTMLInputElement>): Record<Field, string | null> {
  const holder = inputs.holder.value.trim().replace(/\s+/g, ' ');
  const number = inputs.number.value.replace(/[\s-]/g, '');
  const expiry = /^(0[1-9]|1[0-2])\s*\/?\s*(\d{2})$/.exec(inputs.expiry.value.trim());
  const cvv = inputs.cvv.value.trim();
  return {
    holder: holder.length >= 2 && holder.length <= 80 && !/[\p{Cc}]/u.test(holder) ? holder : null,
    number: /^\d{13,19}$/.test(number) && luhn(number) ? number : null,
    expiry: expiry && !pastMonth(Number(expiry[1]), Number(expiry[2])) ? `${expiry[1]}/${expiry[2]}` : null,
    cvv: /^\d{3,4}$/.test(cvv) ? cvv : null,
  };
}

function pastMonth(month: number, year: number): boolean {
  const now = new Date();
  const current = (now.getFullYear() % 100) * 12 + now.getMonth() + 1;
  return year * 12 + month < current;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}
