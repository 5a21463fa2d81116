/**
 * A request body as data: JSON whose strings may hold `{name}` placeholders. A string that is exactly one becomes
 * the value with its type (absent: the member is left out); inside a longer string, the value's text.
 */
export type WireTemplate =
  string | number | boolean | null | WireTemplate[] | { [key: string]: WireTemplate };

const WHOLE = /^\{([a-z][a-z0-9_]*)\}$/;
const INSIDE = /\{([a-z][a-z0-9_]*)\}/g;

const ABSENT = Symbol('absent');

/** A placeholder naming no known value throws: a typo must not reach the wire. */
export function renderTemplate(template: WireTemplate, values: Record<string, unknown>): unknown {
  const out = render(template, values, 0);
  return out === ABSENT ? undefined : out;
}

function render(node: unknown, values: Record<string, unknown>, depth: number): unknown {
  if (depth > 32) throw new Error('wire template nested deeper than 32 levels');
  if (typeof node === 'string') {
    const whole = WHOLE.exec(node);
    if (whole) return lookup(values, whole[1]) ?? ABSENT;
    return node.replace(INSIDE, (_, name: string) => String(lookup(values, name) ?? ''));
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

/** Placeholders a template uses. */
export function placeholdersOf(template: WireTemplate, found = new Set<string>(), depth = 0): Set<string> {
  if (depth > 32) return found;
  if (typeof template === 'string') for (const m of template.matchAll(INSIDE)) found.add(m[1]);
  else if (Array.isArray(template)) template.forEach((t) => placeholdersOf(t, found, depth + 1));
  else if (typeof template === 'object' && template !== null)
    Object.values(template).forEach((t) => placeholdersOf(t, found, depth + 1));
  return found;
}

/** Fills a URL path's placeholders, each value URL-encoded. */
export function renderPath(path: string, values: Record<string, string>): string {
  return path.replace(INSIDE, (_, name: string) => encodeURIComponent(String(lookup(values, name))));
}
