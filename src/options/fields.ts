/**
 * A numeric option: its bounds and default. The section resolvers walk tables of these, so each option's default
 * and validation is written once; `fraction` allows non-integers (a growth factor, a share).
 */
export interface NumberField {
  min: number;
  max?: number;
  default: number;
  fraction?: boolean;
}

/** An integer option of at least `min` (at most `max`), `fallback` when absent. */
export function int<M extends number | undefined = undefined>(
  min: number,
  fallback: number,
  max?: M,
): NumberField & { max: M } {
  return { min, max: max as M, default: fallback };
}

/** What is wrong with `value` under `field`'s bounds, or `null`. */
export function numberProblem(field: NumberField, value: unknown): string | null {
  const { min, max = Number.MAX_SAFE_INTEGER } = field;
  const ok = field.fraction ? Number.isFinite(value) : Number.isSafeInteger(value);
  if (ok && (value as number) >= min && (value as number) <= max) return null;
  const what = field.fraction ? 'a number' : 'an integer';
  return field.max === undefined
    ? `must be ${what} of at least ${min}`
    : `must be ${what} from ${min} to ${max}`;
}

/**
 * Every option of `fields` from `given` (absent ones at their default); the first value out of bounds is refused,
 * named `<section>.<option>`.
 */
export function resolveNumbers<F extends Readonly<Record<string, NumberField>>>(
  section: string,
  fields: F,
  given: object = {},
): Record<keyof F, number> {
  const resolved = {} as Record<keyof F, number>;
  for (const name of Object.keys(fields) as Array<keyof F & string>) {
    const value = (given as Record<string, unknown>)[name] ?? fields[name].default;
    const problem = numberProblem(fields[name], value);
    if (problem) throw new Error(`${section}.${name} ${problem}`);
    resolved[name] = value as number;
  }
  return resolved;
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** A table of a section's numeric options: one field per option of `T` whose value is a number. */
export type Numbers<T> = Readonly<{
  [K in keyof T as Required<T>[K] extends number ? K : never]-?: NumberField;
}>;
