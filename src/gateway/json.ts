// JSON from outside, read leniently: each helper answers `null` (or `undefined`) for a value not of its kind.

export type JsonRecord = Record<string, unknown>;

export function asRecord(value: unknown): JsonRecord | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : null;
}

/** `sentText` with NUL as U+FFFD: PostgreSQL cannot store it. */
export function asText(value: unknown): string | null {
  return sentText(value)?.replaceAll('\u0000', '\uFFFD') ?? null;
}

/**
 * A string, or a finite number's text; else (and `""`) `null`. NUL is kept: the webhook intake refuses a routing
 * text holding one with a 400 naming the field, where a replaced character would be stored as if the sender wrote it.
 */
export function sentText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** An integer, or one written as a string; else `null`. */
export function asInt(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  return null;
}

export function asBool(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

/** The value at a dotted path (`''`: the value itself; `null`: not sent, `undefined`). */
export function valueAt(value: unknown, path: string | null): unknown {
  if (!path) return path === '' ? value : undefined;
  return path.split('.').reduce<unknown>((node, key) => asRecord(node)?.[key], value);
}

/** The text at the first of `paths` that holds some (read by `read`, `asText` by default), or `null`. */
export function firstTextAt(value: unknown, paths: readonly string[], read = asText): string | null {
  for (const path of paths) {
    const text = read(valueAt(value, path));
    if (text !== null) return text;
  }
  return null;
}

/** Deepest JSON nesting read from outside. */
export const MAX_JSON_DEPTH = 64;

/** Whether `value` nests deeper than `max`; iterative, so a hostile body cannot overflow the call stack. */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const nodes: unknown[] = [value];
  const depths: number[] = [0];
  let visited = 0;
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= max) return true;
    visited += 1;
    if (visited > 1_000_000) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}
