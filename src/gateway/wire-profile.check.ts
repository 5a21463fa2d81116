import { all as allOf, check, each, optional, Rule } from './dto/validators';
import { placeholdersOf } from './wire-template';

const MAX_PROFILE_JSON = 32_768;

/**
 * Problems of wire-profile overrides given as data (the admin settings' `wireProfile`) by dotted field path: every
 * key known, every value of its kind, templates using only their request's values, no function.
 */
export function checkWireProfileData(value: unknown, root = 'wireProfile'): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const fail = (path: string, message: string) => (errors[path] ??= []).push(message);
  if (JSON.stringify(value ?? null).length > MAX_PROFILE_JSON)
    fail(root, `must be at most ${MAX_PROFILE_JSON} characters of JSON`);
  else PROFILE(value, root, fail, {});
  return errors;
}

const part =
  (shape: Record<string, Rule>): Rule =>
  (v, p, fail) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail(p, 'must be an object');
    for (const [key, item] of Object.entries(v)) {
      if (item === undefined) continue;
      const rule = shape[key];
      if (rule) rule(item, `${p}.${key}`, fail, v as Record<string, unknown>);
      else fail(`${p}.${key}`, 'is not a part of the wire profile');
    }
  };

const oneOf = (...allowed: string[]) =>
  check(`must be one of ${allowed.join(', ')}`, (v) => typeof v === 'string' && allowed.includes(v));

const path = check(
  'must be a path relative to the base URL, starting with "/" (no host, query or "..")',
  (v) =>
    typeof v === 'string' &&
    v.length <= 256 &&
    /^\/[A-Za-z0-9._~\-/{}%]*$/.test(v) &&
    !v.includes('..') &&
    !v.startsWith('//'),
);
const name = check(
  'must be a name of 1 to 64 letters, digits, "_", "-", ".", "[" or "]"',
  (v) => typeof v === 'string' && /^[A-Za-z0-9_.\-[\]]{1,64}$/.test(v),
);
const jsonPath = check(
  'must be a dotted path into the JSON answer (e.g. "pagination.page"), or "" for the whole body',
  (v) => typeof v === 'string' && v.length <= 128 && /^([A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)?$/.test(v),
);
const jsonPaths = allOf(
  check('must be a list of at most 16 dotted paths', (v) => Array.isArray(v) && v.length <= 16),
  each(jsonPath),
);
const code = check(
  'must be an integer from 0 to 9999',
  (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 9999,
);
const template =
  (...values: string[]): Rule =>
  (v, p, fail) => {
    if (typeof v === 'function') return fail(p, 'a function is not data: give it in the module options');
    if (depthOf(v) > 8) return fail(p, 'must be JSON nested at most 8 levels');
    const unknown = [...placeholdersOf(v as never)].filter((x) => !values.includes(x));
    const known = values.join(', ');
    if (unknown.length)
      fail(p, `uses unknown placeholders ${unknown.map((x) => `{${x}}`).join(', ')} (known: ${known})`);
  };
const probeBody = check(
  'must be JSON nested at most 8 levels',
  (v) => typeof v !== 'function' && depthOf(v) <= 8,
);

const QUERY_KEYS = ['page', 'limit', 'status', 'referrer', 'paymentId', 'createdFrom', 'createdTo', 'id'];
const maxPages = check(
  'must be an integer from 1 to 1000',
  (v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000,
);
const lookup: Rule = (v, p, fail) => {
  const o = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  const keys = o ? Object.keys(o) : [];
  if (o && 'get' in o && keys.every((k) => k === 'get' || k === 'at')) {
    if (o.at !== undefined) jsonPath(o.at, `${p}.at`, fail, o);
    return path(o.get, `${p}.get`, fail, o);
  }
  if (o && 'list' in o && keys.every((k) => k === 'list' || k === 'maxPages')) {
    oneOf(...QUERY_KEYS)(o.list, `${p}.list`, fail, o);
    if (o.maxPages !== undefined) maxPages(o.maxPages, `${p}.maxPages`, fail, o);
    return;
  }
  fail(
    p,
    o
      ? 'must be { list: <filter>, maxPages? } or { get: <path>, at? }'
      : 'must be { list: <filter> } or { get: <path> }',
  );
};

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
const plan = (...values: string[]) => part({ method: oneOf(...WRITES), path, body: template(...values) });
const all = (keys: string[], rule: Rule) => part(Object.fromEntries(keys.map((k) => [k, rule])));

const PROFILE = part({
  paths: all(['invoices', 'webhooks', 'consumers', 'mediations', 'chargebacks'], path),
  codes: part({
    paymentTypes: all(['pix', 'billet', 'card'], code),
    productTypes: all(['physical', 'digital'], code),
  }),
  list: part({
    query: all(QUERY_KEYS, name),
    items: all(['invoices', 'consumers', 'mediations', 'chargebacks'], jsonPath),
    page: optional(jsonPath),
    pages: optional(jsonPath),
    total: optional(jsonPath),
    limit: optional(jsonPath),
  }),
  lookup: part({ byReferrer: lookup, byId: lookup }),
  refund: plan('id', 'invoice_id', 'amount', 'amount_decimal', 'amount_cents', 'amount_brl'),
  tracking: plan('invoice_id', 'code', 'carrier', 'url'),
  readBack: part({ trackingCode: optional(jsonPath) }),
  authenticate: optional(
    part({
      method: oneOf('GET', 'POST'),
      path,
      credentials: oneOf('basic', 'body'),
      body: template('client_id', 'client_secret'),
      answer: part({
        accessToken: jsonPath,
        tokenType: optional(jsonPath),
        expiresIn: optional(jsonPath),
        scopes: optional(jsonPath),
      }),
    }),
  ),
  credentialStatus: optional(
    part({ path, answer: all(['active', 'scopes', 'expiresAt'], optional(jsonPath)) }),
  ),
  credentialProbes: all(
    ['invoice.write', 'invoice.update', 'invoice.refund'],
    part({ method: oneOf(...WRITES), path, body: probeBody }),
  ),
  webhook: all(['invoice', 'event', 'deliveryId', 'webhookId', 'sentAt', 'test'], jsonPaths),
});

function depthOf(value: unknown, depth = 0): number {
  if (depth > 8) return depth;
  if (Array.isArray(value)) return Math.max(depth, ...value.map((v) => depthOf(v, depth + 1)));
  if (typeof value === 'object' && value !== null)
    return Math.max(depth, ...Object.values(value).map((v) => depthOf(v, depth + 1)));
  return depth;
}
