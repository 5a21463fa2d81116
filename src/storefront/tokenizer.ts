import type { CardInput, TokenizedCard } from './types.js';

type Tokenize = (card: CardInput) => Promise<TokenizedCard>;

/** One load per script URL for the page, however many components use it. */
const loading = new Map<string, Promise<void>>();

/**
 * Loads the service's tokenization script (once) and hands it the card: the card goes from the shopper's browser
 * to the service, never to the store. The convention (URL, global function, answer) is in
 * docs/gateway-assumptions.md, A12. Rejects with `code: 'script_unavailable'` when the script cannot be loaded.
 */
export async function tokenizeCard(src: string, fn: string, card: CardInput): Promise<TokenizedCard> {
  const global = window as unknown as Record<string, Tokenize | undefined>;
  if (typeof global[fn] !== 'function') {
    await load(src);
    if (typeof global[fn] !== 'function') throw coded('script_unavailable', `the script defines no ${fn}()`);
  }
  const answer = await (global[fn] as Tokenize)(card);
  if (!answer || typeof answer.token !== 'string' || answer.token === '')
    throw coded('unavailable', 'no token');
  return answer;
}

function load(src: string): Promise<void> {
  let pending = loading.get(src);
  if (!pending) {
    pending = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loading.delete(src);
        script.remove();
        reject(coded('script_unavailable', `could not load ${src}`));
      };
      document.head.appendChild(script);
    });
    loading.set(src, pending);
  }
  return pending;
}

function coded(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}
