// The admin API client. The admin key lives in sessionStorage only (gone when the tab closes) and travels as a
// bearer header: no cookie is set, so another site cannot make the browser call these endpoints (no CSRF).

const KEY_STORAGE = 'invoice-payments-admin-key';

/** The API's base: the page's folder (the page is served at `<prefix>/`, the API under `<prefix>/...`). */
const BASE = new URL('.', document.baseURI).pathname.replace(/\/+$/, '');

/** An answer outside 2xx: `status`, and the JSON body (`message`, `errors` per field...). */
export class ApiError extends Error {
  constructor(status, body) {
    const message = body && typeof body === 'object' ? body.message : null;
    super(Array.isArray(message) ? message.join('; ') : (message ?? `HTTP ${status}`));
    this.status = status;
    this.body = body ?? {};
  }

  /** Field errors of a 400 (`{ 'ecommerce.storeId': ['...'] }`), else `{}`. */
  get fieldErrors() {
    const errors = this.body && this.body.errors;
    return errors && typeof errors === 'object' ? errors : {};
  }
}

export function getKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function setKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

/** Calls `METHOD <prefix><path>`; resolves with the JSON answer or rejects with an {@link ApiError}. */
export async function api(method, path, body, query) {
  const url = new URL(BASE + path, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  const headers = { Accept: 'application/json' };
  const key = getKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, { message: 'network' });
  }
  const text = await response.text();
  let parsed = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = { message: text.slice(0, 300) };
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}
