/** A numeric option's bounds and default, written once; `fraction` allows non-integers. */
export interface NumberField {
  min: number;
  max?: number;
  default: number;
  fraction?: boolean;
}

export function int<M extends number | undefined = undefined>(
  min: number,
  fallback: number,
  max?: M,
): NumberField & { max: M } {
  return { min, max: max as M, default: fallback };
}

/** Every option of `fields` from `given` or its default; one out of bounds is told to `bad` (default: refused). */
export function resolveNumbers<F extends Readonly<Record<string, NumberField>>>(
  section: string,
  fields: F,
  given: object = {},
  bad = (name: string, problem: string): void => {
    throw new Error(`${section}.${name} ${problem}`);
  },
): Record<keyof F, number> {
  const resolved = {} as Record<keyof F, number>;
  for (const name of Object.keys(fields) as Array<keyof F & string>) {
    const { min, max = Number.MAX_SAFE_INTEGER, fraction, default: fallback } = fields[name];
    const value = (given as Record<string, unknown>)[name] ?? fallback;
    const ok = fraction ? Number.isFinite(value) : Number.isSafeInteger(value);
    if (!ok || (value as number) < min || (value as number) > max) {
      const range = fields[name].max === undefined ? `of at least ${min}` : `from ${min} to ${max}`;
      bad(name, `must be ${fraction ? 'a number' : 'an integer'} ${range}`);
    }
    resolved[name] = value as number;
  }
  return resolved;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The options a table of fields declares, each an optional number: what a store writes for `F`. */
export type NumberOptions<F> = { -readonly [K in keyof F]?: number };

/** One field per numeric option of `T`. */
export type Numbers<T> = Readonly<{
  [K in keyof T as Required<T>[K] extends number ? K : never]-?: NumberField;
}>;
