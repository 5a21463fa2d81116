import { createCardToken } from './cards';
import type { Core, RouteResult } from './core';
import { SandboxError } from './errors';
import { parseJsonObject } from './http';
import { errorBody } from './shapes';

/** Where the service's client-side card script lives, and the endpoint it posts the card to (A12). */
export const CARD_SCRIPT_PATH = '/js/card.js';
export const CARD_TOKENS_PATH = '/card-tokens';
/** The global function the script defines. */
export const CARD_SCRIPT_FUNCTION = 'invoicePaymentsTokenizeCard';

/**
 * A shopper's browser on any store's origin calls the tokenization endpoint: it answers every origin (no cookie is
 * ever read or set), and a preflight for its JSON body.
 */
const CORS: Record<string, string> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': 'Content-Type',
  'Access-Control-Max-Age': '600',
};

/**
 * The service's client-side card tokenization script and its endpoint, as docs/gateway-assumptions.md (A12) pictures
 * them: `GET /js/card.js` defines `window.invoicePaymentsTokenizeCard(card)`, which posts the card to
 * `POST /card-tokens` on the script's own origin and resolves `{ token, brand, last4 }`. No bearer token: the
 * shopper's browser has none. Answers null for any other path.
 */
export function handleCardScript(core: Core, method: string, path: string, raw: string): RouteResult | null {
  if (path === CARD_SCRIPT_PATH && (method === 'GET' || method === 'HEAD')) {
    return {
      body: CARD_SCRIPT,
      headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' },
    };
  }
  if (path !== CARD_TOKENS_PATH) return null;
  if (method === 'OPTIONS')
    return { status: 204, body: '', headers: { ...CORS, 'Content-Type': 'text/plain' } };
  if (method !== 'POST') return null;
  try {
    const card = parseJsonObject(raw);
    const { token, brand, last4 } = createCardToken(core.store, card, core.now(), core.timeZone, {
      cvvRequired: true,
    });
    return { body: { token, brand, last4 }, headers: { ...CORS, 'Content-Type': 'application/json' } };
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    return {
      status: err.status,
      body: errorBody(core.render(), err),
      headers: { ...CORS, 'Content-Type': 'application/json' },
    };
  }
}

/**
 * The script itself: no dependency, no global but the function. It rejects with an `Error` whose `code` is the
 * service's (`validation_error`, `unavailable`...) or `network_error`, and whose `fields` lists the card fields the
 * service refused (`number`, `holder`, `expiry`, `cvv`).
 */
const CARD_SCRIPT = `(function () {
  var script = document.currentScript;
  var origin = new URL(script && script.src ? script.src : location.href).origin;
  function failure(code, message, fields) {
    var err = new Error(message);
    err.code = code;
    err.fields = fields || [];
    return err;
  }
  window.${CARD_SCRIPT_FUNCTION} = function (card) {
    card = card || {};
    var body = JSON.stringify({ number: card.number, holder: card.holderName, expiry: card.expiry, cvv: card.cvv });
    return fetch(origin + '${CARD_TOKENS_PATH}', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body,
      credentials: 'omit',
    }).then(
      function (res) {
        return res.json().catch(function () { return {}; }).then(function (answer) {
          if (res.ok && answer.token) return { token: answer.token, brand: answer.brand, last4: answer.last4 };
          throw failure(answer.code || 'unavailable', answer.message || 'HTTP ' + res.status, Object.keys(answer.errors || {}));
        });
      },
      function () { throw failure('network_error', 'the card service could not be reached'); }
    );
  };
})();
`;
