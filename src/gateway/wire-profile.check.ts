import { isTimeZone } from '../domain/text-and-days';
import { addFieldError, all as allOf, check, each, integerFrom, optional, Rule } from './dto/validators';
import { asRecord, exceedsJsonDepth } from './json';
import { DEFAULT_WIRE_PROFILE, PRODUCT_DISCOUNT_RULES } from './wire-profile';
import { placeholdersOf } from './wire-requests';

const tooDeep = (value: unknown) => exceedsJsonDepth(value, 8);

const MAX_PROFILE_JSON = 32_768;

/**
 * Problems of wire-profile overrides given as data (the admin settings' `wireProfile`) by dotted field path: every
 * key known, every value of its kind, templates using only their request's values, no function.
 */
export function checkWireProfileData(value: unknown): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const fail = (path: string, message: string) => addFieldError(errors, path, message);
  if (JSON.stringify(value ?? null).length > MAX_PROFILE_JSON) {
    fail('wireProfile', `must be at most ${MAX_PROFILE_JSON} characters of JSON`);
  } else {
    PROFILE(value, 'wireProfile', fail, {});
  }
  return errors;
}

const part =
  (shape: Record<string, Rule>): Rule =>
  (v, p, fail) => {
    const given = asRecord(v);
    if (!given) return fail(p, 'must be an object');
    for (const [key, item] of Object.entries(given)) {
      if (item === undefined) continue;
      const rule = shape[key];
      if (rule) rule(item, `${p}.${key}`, fail, given);
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
const code = integerFrom(0, 9999);
const timeZone = check('must be an IANA time zone such as "America/Sao_Paulo"', isTimeZone);
const json = check('must be JSON nested at most 8 levels', (v) => typeof v !== 'function' && !tooDeep(v));
const template =
  (...values: string[]): Rule =>
  (v, p, fail, parent) => {
    if (typeof v === 'function') return fail(p, 'a function is not data: give it in the module options');
    if (tooDeep(v)) return json(v, p, fail, parent);
    const unknown = [...placeholdersOf(v as never)].filter((x) => !values.includes(x));
    const known = values.join(', ');
    if (unknown.length)
      fail(p, `uses unknown placeholders ${unknown.map((x) => `{${x}}`).join(', ')} (known: ${known})`);
  };

const QUERY_KEYS = Object.keys(DEFAULT_WIRE_PROFILE.list.query);
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];
const maxPages = integerFrom(1, 1000);
const byGet = part({ get: path, at: jsonPath });
const byList = part({ list: oneOf(...QUERY_KEYS), maxPages });
const lookup: Rule = (v, p, fail, parent) => {
  const o = asRecord(v);
  if (o && 'get' in o && !('list' in o)) return byGet(v, p, fail, parent);
  if (o && 'list' in o && !('get' in o)) return byList(v, p, fail, parent);
  fail(p, 'must be { list: <filter>, maxPages? } or { get: <path>, at? }');
};

/** Parts a profile may set to `null` (not sent, no such operation). */
const NULLABLE = new Set(
  'list.page list.pages list.total list.limit readBack.trackingCode authenticate credentialStatus'.split(' '),
);
/** Each template's values (as the client renders them). */
const TEMPLATES: Record<string, string[]> = {
  'refund.body': ['id', 'invoice_id', 'amount', 'amount_decimal', 'amount_cents', 'amount_brl'],
  'tracking.body': ['invoice_id', 'code', 'carrier', 'url'],
  'authenticate.body': ['client_id', 'client_secret'],
};

/** The rule of the part at `at`, derived from its default value: its kind and, for a string, its role. */
function ruleOf(value: unknown, at: string): Rule {
  const key = at.slice(at.lastIndexOf('.') + 1);
  const rule = kindOf(value, at, key);
  const nullable = NULLABLE.has(at) || (at.includes('.answer.') && key !== 'accessToken');
  return nullable ? optional(rule) : rule;
}

function kindOf(value: unknown, at: string, key: string): Rule {
  if (TEMPLATES[at]) return template(...TEMPLATES[at]);
  if (key === 'body') return json;
  if (key === 'byReferrer' || key === 'byId') return lookup;
  if (key === 'method') return oneOf(...(at === 'authenticate.method' ? ['GET', 'POST'] : WRITES));
  if (key === 'credentials') return oneOf('basic', 'body');
  if (at === 'timeZone') return timeZone;
  if (at === 'productDiscount') return oneOf(...PRODUCT_DISCOUNT_RULES);
  if (typeof value === 'number') return code;
  if (Array.isArray(value)) return jsonPaths;
  if (typeof value !== 'string') return partOf(value as Record<string, unknown>, at);
  if (at.startsWith('list.query.')) return name;
  return value.startsWith('/') ? path : jsonPath;
}

function partOf(value: Record<string, unknown>, at: string): Rule {
  const keys = Object.keys(value).concat(at === 'authenticate' ? ['body'] : []);
  const rules: Record<string, Rule> = {};
  for (const key of keys) rules[key] = ruleOf(value[key], at ? `${at}.${key}` : key);
  return part(rules);
}

const PROFILE = partOf({ ...DEFAULT_WIRE_PROFILE }, '');
