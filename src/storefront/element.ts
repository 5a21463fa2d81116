import { buttonBusy, copyText } from './actions.js';
import { cardFlow } from './card-flow.js';
import { Base, h, append, type Child } from './dom.js';
import { messagesFor } from './messages.js';
import { FAILURES_SHOWN, isSettled, nextPoll, retryDelay } from './schedule.js';
import { paymentSection, shownState, startCountdown, type SectionContext } from './sections.js';
import { HttpError, httpSource } from './source.js';
import { applyStyles } from './styles.js';
import type { PayHook, PaymentEventDetail, PaymentSource, PaymentState, PaymentView } from './types.js';
import { readView } from './view.js';

/**
 * `<invoice-payment>`: the shopper's payment screen. Give it the store's status route (`src`, or a `source` for
 * GraphQL hosts) and it shows the PIX code, the bank slip or the card's outcome, and follows the payment until it
 * settles; give it `method="card"`, `amount` and a `pay` hook and it takes the card first. See docs/storefront.md.
 *
 * @fires statechange - `detail: { state, view }` whenever the state the shopper sees changes.
 * @fires paid - `detail: { state: 'paid', view }` once the payment is confirmed.
 */
export class InvoicePaymentElement extends Base {
  static readonly observedAttributes = ['src', 'lang', 'method', 'amount', 'max-installments'];

  #headers: Record<string, string> = {};
  #source: PaymentSource | null = null;
  #pay: PayHook | null = null;
  #view: PaymentView | null = null;
  #shown: PaymentState | null = null;
  #mode: 'idle' | 'loading' | 'view' | 'form' | 'missing' = 'idle';
  #generation = 0;
  #round = 0;
  #failures = 0;
  #inFlight: number | null = null;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;
  #main!: HTMLElement;
  #live!: HTMLElement;
  #message!: HTMLElement;

  /** Extra headers on every request to `src` (Medusa: `{ 'x-publishable-api-key': 'pk_...' }`). */
  get headers(): Record<string, string> {
    return { ...this.#headers };
  }
  set headers(value: Record<string, string> | null) {
    this.#headers = { ...(value ?? {}) };
    this.#restart();
  }

  /** Instead of `src`: where the view comes from (Vendure's shop API, any non-REST host). */
  get source(): PaymentSource | null {
    return this.#source;
  }
  set source(value: PaymentSource | null) {
    this.#source = value;
    this.#restart();
  }

  /** The store's hook that creates the card payment from the card token (see {@link PayHook}). */
  get pay(): PayHook | null {
    return this.#pay;
  }
  set pay(value: PayHook | null) {
    this.#pay = value;
    if (this.#mode === 'form' || this.#mode === 'idle' || this.#mode === 'missing') this.#restart();
  }

  /** The REST status route (reflects the `src` attribute). */
  get src(): string {
    return this.getAttribute('src') ?? '';
  }
  set src(value: string) {
    this.setAttribute('src', value);
  }

  /** The last view the store answered. */
  get view(): PaymentView | null {
    return this.#view;
  }

  /** The state the shopper sees (a PIX past its expiry is `expired`). */
  get state(): PaymentState | null {
    return this.#shown;
  }

  /** Asks the store now, without waiting for the next poll. */
  refresh(): void {
    if (this.#mode === 'view' || this.#mode === 'loading') this.#poll(this.#generation);
  }

  connectedCallback(): void {
    if (!this.shadowRoot) {
      const root = this.attachShadow({ mode: 'open' });
      this.#live = h('div', { class: 'sr', role: 'status', 'aria-live': 'polite' });
      this.#message = h('p', { part: 'message', 'aria-live': 'polite' });
      this.#main = h('div', { part: 'container' });
      applyStyles(root);
      append(root, [this.#live, this.#main]);
    }
    document.addEventListener('visibilitychange', this.#onVisibility);
    this.#restart();
  }

  disconnectedCallback(): void {
    document.removeEventListener('visibilitychange', this.#onVisibility);
    this.#stop();
    this.#mode = 'idle';
  }

  attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    if (before !== after && this.isConnected) this.#restart();
  }

  get #words() {
    return messagesFor(this.getAttribute('lang'));
  }

  #activeSource(): PaymentSource | null {
    return this.#source ?? (this.src ? httpSource(this.src, this.#headers) : null);
  }

  #restart(): void {
    if (!this.isConnected || !this.shadowRoot) return;
    this.#stop();
    this.#generation++;
    this.#view = null;
    this.#shown = null;
    this.#round = 0;
    this.#failures = 0;
    if (this.#activeSource()) {
      this.#mode = 'loading';
      this.#render();
      this.#poll(this.#generation);
    } else this.#showForm();
  }

  #stop(): void {
    clearTimeout(this.#timer);
    clearInterval(this.#tick);
    this.#timer = this.#tick = undefined;
  }

  #showForm(): void {
    this.#stop();
    this.#mode = this.getAttribute('method') === 'card' ? 'form' : 'missing';
    this.#render();
  }

  /** One request at a time: a poll asked for while one is out runs right after it. */
  async #poll(generation: number): Promise<void> {
    clearTimeout(this.#timer);
    const source = this.#activeSource();
    if (!source) return;
    if (this.#inFlight === generation) return void (this.#again = true);
    this.#inFlight = generation;
    let delay: number | null;
    try {
      const answer = await source.load();
      // A GraphQL host answers null for a payment that is not the caller's (Vendure's shop API): a 404.
      if (answer === null && generation === this.#generation) return this.#fatal(this.#words.m.notFound);
      const view = readView(answer);
      if (generation !== this.#generation) return;
      this.#failures = 0;
      this.#setView(view);
      delay = nextPoll(view, this.#round, document.hidden);
    } catch (err) {
      if (generation !== this.#generation) return;
      if (err instanceof HttpError && err.status === 404) return this.#fatal(this.#words.m.notFound);
      this.#failures++;
      if (this.#failures >= FAILURES_SHOWN) this.#message.textContent = this.#words.m.connection;
      delay = retryDelay(err, this.#failures);
    } finally {
      if (this.#inFlight === generation) this.#inFlight = null;
    }
    if (this.#again && delay !== null) delay = 0;
    this.#again = false;
    clearTimeout(this.#timer);
    if (delay !== null) this.#timer = setTimeout(() => this.#poll(generation), delay);
  }

  #onVisibility = (): void => {
    if (!document.hidden && this.#timer !== undefined && this.#view && !isSettled(this.#view)) this.refresh();
  };

  /** Takes a new view: re-renders only when something the shopper sees changed, and announces a new state. */
  #setView(view: PaymentView): void {
    const changed = JSON.stringify(view) !== JSON.stringify(this.#view) || this.#mode !== 'view';
    this.#round = changed ? 0 : this.#round + 1;
    this.#view = view;
    this.#mode = 'view';
    if (this.#message.textContent === this.#words.m.connection) this.#message.textContent = '';
    if (changed) this.#render();
  }

  #fatal(text: string): void {
    this.#stop();
    this.#mode = 'view';
    this.#view = null;
    this.#main.replaceChildren(h('p', { part: 'error', role: 'alert' }, text));
  }

  #render(): void {
    const { m, locale } = this.#words;
    const active = this.shadowRoot?.activeElement as HTMLElement | null;
    const focused = active?.dataset.focus;
    let content: Child[];
    if (this.#mode === 'form') {
      content = cardFlow(this, {
        m,
        locale,
        view: this.#view,
        pay: this.#pay,
        onView: (v) => this.#acceptCard(v),
      });
    } else if (this.#mode === 'view' && this.#view) {
      content = this.#viewContent(this.#view);
    } else if (this.#mode === 'loading') {
      content = [h('h2', { part: 'status', 'data-state': 'waiting', tabindex: -1 }, m.loading)];
    } else content = [];
    this.#main.replaceChildren(...content.filter((c): c is Node | string => !!c), this.#message);
    const again = focused && this.#main.querySelector<HTMLElement>(`[data-focus="${focused}"]`);
    if (again) again.focus();
    else if (active && !active.isConnected) this.#main.querySelector<HTMLElement>('[part~=status]')?.focus();
    this.#startTick();
  }

  #viewContent(view: PaymentView): Child[] {
    const { m, locale } = this.#words;
    const state = shownState(view, Date.now());
    const source = this.#activeSource();
    const context: SectionContext = {
      m,
      locale,
      copy: (text) => copyText(text, m, (said) => (this.#message.textContent = said)),
      renew: view.renewable && source?.renew ? () => this.#renew() : null,
      retry: this.#pay && this.getAttribute('method') === 'card' ? () => this.#retryCard() : null,
    };
    if (state !== this.#shown) this.#announce(view, state);
    return paymentSection(view, state, context);
  }

  #announce(view: PaymentView, state: PaymentState): void {
    const first = this.#shown === null;
    this.#shown = state;
    if (!first) {
      this.#live.textContent = this.#words.m.state[state];
      // "Copiado" and the like were about the screen before.
      this.#message.textContent = '';
    }
    const detail: PaymentEventDetail = { state, view };
    this.dispatchEvent(new CustomEvent('statechange', { detail, bubbles: true, composed: true }));
    if (state === 'paid')
      this.dispatchEvent(new CustomEvent('paid', { detail, bubbles: true, composed: true }));
  }

  #startTick(): void {
    clearInterval(this.#tick);
    this.#tick = startCountdown(this.#main, this.#words, () => {
      this.#render();
      this.refresh();
    });
  }

  async #renew(): Promise<void> {
    const source = this.#activeSource();
    if (!source?.renew) return;
    const { m } = this.#words;
    const generation = this.#generation;
    const button = this.#main.querySelector<HTMLButtonElement>('[part~=renew-button]');
    buttonBusy(button, true, m.renewing);
    try {
      const view = readView(await source.renew());
      if (generation !== this.#generation) return;
      this.#message.textContent = '';
      this.#setView(view);
      this.#poll(generation);
    } catch {
      if (generation !== this.#generation) return;
      this.#message.textContent = m.renewFailed;
      buttonBusy(button, false, m.renew);
    }
  }

  #retryCard(): void {
    this.#generation++;
    this.#showForm();
    this.#main.querySelector<HTMLInputElement>('input')?.focus();
  }

  /** What the store's `pay` hook answered: a status URL to follow, or the payment's view. */
  #acceptCard(result: PaymentView | { src: string }): void {
    if ('src' in result && typeof result.src === 'string') {
      if (result.src === this.src) this.#restart();
      else this.src = result.src;
      return;
    }
    this.#stop();
    this.#setView(readView(result));
    if (this.#activeSource() && this.#view && !isSettled(this.#view)) this.#poll(this.#generation);
  }
}
