/**
 * A request body written as data, so that it can live in the admin settings: any JSON value whose strings may hold
 * placeholders `{name}`.
 * - A string that is exactly one placeholder (`"{amount}"`) becomes the value itself, with its type (a number stays
 *   a number); when the value is absent the member is left out of its object (or the array).
 * - A placeholder inside a longer string (`"BR-{code}"`) is replaced by the value's text (an absent value: `""`).
 * - Everything else is copied as is.
 */
export type WireTemplate =
  string | number | boolean | null | WireTemplate[] | { [key: string]: WireTemplate };

const WHOLE = /^\{([a-z][a-z0-9_]*)\}$/;
const INSIDE = /\{([a-z][a-z0-9_]*)\}/g;

/** Marks a member to leave out. */
const ABSENT = Symbol('absent');

/** Renders `template` with `values`; a placeholder naming no known value throws (a typo must not reach the wire). */
export function renderTemplate(template: WireTemplate, values: Record<string, unknown>): unknown {
  const out = render(template, values, 0);
  return out === ABSENT ? undefined : out;
}

function render(node: unknown, values: Record<string, unknown>, depth: number): unknown {
  if (depth > 32) throw new Error('wire template nested deeper than 32 levels');
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node);
    if (whole) {
      const value = lookup(values, whole[1]);
      return value === undefined || value === null ? ABSENT : value;
    }
    return node.replace(INSIDE, (_, name: string) => {
      const value = lookup(values, name);
      return value === undefined || value === null ? '' : String(value);
    });
  }
  if (Array.isArray(node)) {
    return node.map((item) => render(item, values, depth + 1)).filter((item) => item !== ABSENT);
  }
  if (typeof node === 'object' && node !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const rendered = render(value, values, depth + 1);
      if (rendered !== ABSENT) out[key] = rendered;
    }
    return out;
  }
  return node;
}

function lookup(values: Record<string, unknown>, name: string): unknown {
  if (!Object.prototype.hasOwnProperty.call(values, name)) {
    throw new Error(
      `wire template: unknown placeholder {${name}} (known: ${Object.keys(values).join(', ')})`,
    );
  }
  return values[name];
}

/** Placeholders a template uses, for checking a saved template against the values its request offers. */
export function placeholdersOf(template: WireTemplate, found = new Set<string>(), depth = 0): Set<string> {
  if (depth > 32) return found;
  if (typeof template === 'string') for (const m of template.matchAll(INSIDE)) found.add(m[1]);
  else if (Array.isArray(template)) template.forEach((t) => placeholdersOf(t, found, depth + 1));
  else if (typeof template === 'object' && template !== null)
    Object.values(template).forEach((t) => placeholdersOf(t, found, depth + 1));
  return found;
}

/** Fills `{name}` placeholders of a URL path, each value URL-encoded. */
export function renderPath(path: string, values: Record<string, string>): string {
  return path.replace(INSIDE, (_, name: string) => {
    const value = lookup(values, name);
    return encodeURIComponent(String(value));
  });
}
