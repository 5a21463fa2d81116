import type { Planned } from './gateway.transport';
import { centsToDecimalString, centsToWireNumber, formatBrl } from './money';
import type { RefundParams } from './types';
import type { WireAuthenticate, WireRequestPlan, WireTemplate } from './wire-profile';

// The requests the profile shapes by template: its bodies filled with the request's values (refund, tracking,
// authenticate) and a lookup's path filled with the value looked up.

/** A lookup by one `get` (`lookup.*.get`): its path filled with the value (and `payment_id` when given). */
export function lookupRequest(path: string, key: string, value: string, paymentId?: string): Planned {
  const values: Record<string, string> = { value, [key]: value };
  if (paymentId !== undefined) values.payment_id = paymentId;
  return { method: 'GET', path: renderPath(path, values), safety: 'read' };
}

const WHOLE = /^\{([a-z][a-z0-9_]*)\}$/;
const INSIDE = /\{([a-z][a-z0-9_]*)\}/g;

const ABSENT = Symbol('absent');

/** A placeholder naming no known value throws: a typo must not reach the wire. */
export function renderTemplate(template: WireTemplate, values: Record<string, unknown>): unknown {
  const out = walk(template, (text) => {
    const whole = WHOLE.exec(text);
    if (whole) return lookup(values, whole[1]) ?? ABSENT;
    return text.replace(INSIDE, (_, name: string) => String(lookup(values, name) ?? ''));
  });
  return out === ABSENT ? undefined : out;
}

export function placeholdersOf(template: WireTemplate): Set<string> {
  const found = new Set<string>();
  walk(template, (text) => {
    for (const match of text.matchAll(INSIDE)) found.add(match[1]);
  });
  return found;
}

/** Each string of a template through `onString`; a member or item turned `ABSENT` is left out. */
function walk(node: unknown, onString: (text: string) => unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('wire template nested deeper than 32 levels');
  if (typeof node === 'string') return onString(node);
  if (Array.isArray(node))
    return node.map((item) => walk(item, onString, depth + 1)).filter((v) => v !== ABSENT);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const rendered = walk(value, onString, depth + 1);
    if (rendered !== ABSENT) out[key] = rendered;
  }
  return out;
}

function lookup(values: Record<string, unknown>, name: string): unknown {
  if (!Object.prototype.hasOwnProperty.call(values, name)) {
    const known = Object.keys(values).join(', ');
    throw new Error(`wire template: unknown placeholder {${name}} (known: ${known})`);
  }
  return values[name];
}

/** Fills a URL path's placeholders, each value URL-encoded. */
export function renderPath(path: string, values: Record<string, string>): string {
  return path.replace(INSIDE, (_, name: string) => encodeURIComponent(String(lookup(values, name))));
}

/** The refund template's values (`WireProfile.refund`). */
export const refundValues = ({ id, invoiceId, amountCents: cents }: RefundParams) => ({
  id,
  invoice_id: invoiceId,
  amount: centsToWireNumber(cents),
  amount_decimal: centsToDecimalString(cents),
  amount_cents: cents,
  amount_brl: formatBrl(cents),
});

/** A profile's request (refund, tracking) with its body rendered: a write that changes an invoice. */
export function renderedRequest(plan: WireRequestPlan, values: Record<string, unknown>): Planned {
  const body = typeof plan.body === 'function' ? plan.body(values) : renderTemplate(plan.body, values);
  return { method: plan.method, path: plan.path, body, safety: 'update' };
}

/** The profile's authenticate request: Basic credentials, or its body template with `client_id`, `client_secret`. */
export function authenticateRequest(auth: WireAuthenticate, user: string, password: string): Planned {
  const planned: Planned = { method: auth.method, path: auth.path, safety: 'write', secrets: [password] };
  if (auth.credentials === 'basic') return { ...planned, basic: { user, password } };
  const template = auth.body ?? { client_id: '{client_id}', client_secret: '{client_secret}' };
  return { ...planned, body: renderTemplate(template, { client_id: user, client_secret: password }) };
}
