import { placeholdersOf } from './wire-template';

/**
 * Checks wire-profile overrides that arrive as data (the admin settings' `wireProfile`, or module options read from
 * a config file): every key known, every value of its kind, templates using only the values their request offers.
 * Returns the problems by dotted field path (`wireProfile.list.items.invoices`); empty when fine.
 *
 * Functions (a `body` function, `webhook.read`) are not data and are refused here: they belong in module options.
 */
export function checkWireProfileData(value: unknown, root = 'wireProfile'): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const fail = (path: string, message: string) => (errors[path] ??= []).push(message);
  if (JSON.stringify(value ?? null).length > MAX_PROFILE_JSON)
    fail(root, `must be at most ${MAX_PROFILE_JSON} characters of JSON`);
  else check(SCHEMA, value, root, fail, 0);
  return errors;
}

/** The largest saved profile, as JSON. */
export const MAX_PROFILE_JSON = 32_768;

type Fail = (path: string, message: string) => void;
type Rule = (value: unknown, path: string, fail: Fail, depth: number) => void;
type Schema = Rule | { [key: string]: Schema };

const PATH = /^\/[A-Za-z0-9._~\-/{}%]*$/;
const METHODS_WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'];

const path: Rule = (v, p, fail) => {
  if (typeof v !== 'string' || v.length > 256 || !PATH.test(v) || v.includes('..') || v.startsWith('//'))
    fail(p, 'must be a path relative to the base URL, starting with "/" (no host, query or "..")');
};
const name: Rule = (v, p, fail) => {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_.\-[\]]{1,64}$/.test(v))
    fail(p, 'must be a name of 1 to 64 letters, digits, "_", "-", ".", "[" or "]"');
};
const jsonPath: Rule = (v, p, fail) => {
  if (typeof v !== 'string' || v.length > 128 || !/^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/.test(v))
    fail(p, 'must be a dotted path into the JSON answer (e.g. "pagination.page"), or "" for the whole body');
};
const nullable =
  (rule: Rule): Rule =>
  (v, p, fail, d) => {
    if (v !== null) rule(v, p, fail, d);
  };
const code: Rule = (v, p, fail) => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 9999)
    fail(p, 'must be an integer from 0 to 9999');
};
const oneOf =
  (...allowed: string[]): Rule =>
  (v, p, fail) => {
    if (typeof v !== 'string' || !allowed.includes(v)) fail(p, `must be one of ${allowed.join(', ')}`);
  };
const jsonPaths: Rule = (v, p, fail, d) => {
  if (!Array.isArray(v) || v.length > 16) return fail(p, 'must be a list of at most 16 dotted paths');
  v.forEach((item, i) => jsonPath(item, `${p}[${i}]`, fail, d + 1));
};
const template =
  (...values: string[]): Rule =>
  (v, p, fail) => {
    if (typeof v === 'function') return fail(p, 'a function is not data: give it in the module options');
    if (depthOf(v) > 8) return fail(p, 'must be JSON nested at most 8 levels');
    const unknown = [...placeholdersOf(v as never)].filter((x) => !values.includes(x));
    if (unknown.length)
      fail(
        p,
        `uses unknown placeholders ${unknown.map((x) => `{${x}}`).join(', ')} (known: ${values.join(', ')})`,
      );
  };
const probeBody: Rule = (v, p, fail) => {
  if (typeof v === 'function' || depthOf(v) > 8) fail(p, 'must be JSON nested at most 8 levels');
};
const lookup: Rule = (v, p, fail) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return fail(p, 'must be { list: <filter> } or { get: <path> }');
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if ('get' in o && keys.every((k) => k === 'get' || k === 'at')) {
    if (o.at !== undefined) jsonPath(o.at, `${p}.at`, fail, 0);
    return path(o.get, `${p}.get`, fail, 0);
  }
  if ('list' in o && keys.every((k) => k === 'list' || k === 'maxPages')) {
    oneOf(...QUERY_KEYS)(o.list, `${p}.list`, fail, 0);
    if (
      o.maxPages !== undefined &&
      (!Number.isInteger(o.maxPages) || (o.maxPages as number) < 1 || (o.maxPages as number) > 1000)
    )
      fail(`${p}.maxPages`, 'must be an integer from 1 to 1000');
    return;
  }
  fail(p, 'must be { list: <filter>, maxPages? } or { get: <path>, at? }');
};

const QUERY_KEYS = ['page', 'limit', 'status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'];
const plan = (...values: string[]): Schema => ({
  method: oneOf(...METHODS_WRITE),
  path,
  body: template(...values),
});

const SCHEMA: Schema = {
  paths: {
    invoices: path,
    webhooks: path,
    consumers: path,
    mediations: path,
    chargebacks: path,
  },
  codes: {
    paymentTypes: { pix: code, billet: code, card: code },
    productTypes: { physical: code, digital: code },
  },
  list: {
    query: Object.fromEntries(QUERY_KEYS.map((k) => [k, name])),
    items: { invoices: jsonPath, consumers: jsonPath, mediations: jsonPath, chargebacks: jsonPath },
    page: nullable(jsonPath),
    pages: nullable(jsonPath),
    total: nullable(jsonPath),
    limit: nullable(jsonPath),
  },
  lookup: { byReferrer: lookup, byId: lookup },
  refund: plan('id', 'invoice_id', 'amount', 'amount_decimal', 'amount_cents', 'amount_brl'),
  tracking: plan('invoice_id', 'code', 'carrier', 'url'),
  readBack: { trackingCode: nullable(jsonPath) },
  authenticate: nullableObject({
    method: oneOf('GET', 'POST'),
    path,
    credentials: oneOf('basic', 'body'),
    body: template('client_id', 'client_secret'),
    answer: {
      accessToken: jsonPath,
      tokenType: nullable(jsonPath),
      expiresIn: nullable(jsonPath),
      scopes: nullable(jsonPath),
    },
  }),
  credentialStatus: nullableObject({
    path,
    answer: { active: nullable(jsonPath), scopes: nullable(jsonPath), expiresAt: nullable(jsonPath) },
  }),
  credentialProbes: Object.fromEntries(
    ['invoice.write', 'invoice.update', 'invoice.refund'].map((s) => [
      s,
      { method: oneOf(...METHODS_WRITE), path, body: probeBody },
    ]),
  ),
  webhook: {
    invoice: jsonPaths,
    event: jsonPaths,
    deliveryId: jsonPaths,
    webhookId: jsonPaths,
    sentAt: jsonPaths,
    test: jsonPaths,
  },
};

function nullableObject(schema: { [key: string]: Schema }): Rule {
  return (v, p, fail, d) => {
    if (v !== null) check(schema, v, p, fail, d);
  };
}

function check(schema: Schema, value: unknown, p: string, fail: Fail, depth: number): void {
  if (typeof schema === 'function') return schema(value, p, fail, depth);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(p, 'must be an object');
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const sub = schema[key];
    if (sub === undefined) fail(`${p}.${key}`, 'is not a part of the wire profile');
    else check(sub, v, `${p}.${key}`, fail, depth + 1);
  }
}

function depthOf(value: unknown, depth = 0): number {
  if (depth > 8) return depth;
  if (Array.isArray(value)) return Math.max(depth, ...value.map((v) => depthOf(v, depth + 1)));
  if (typeof value === 'object' && value !== null)
    return Math.max(depth, ...Object.values(value).map((v) => depthOf(v, depth + 1)));
  return depth;
}
