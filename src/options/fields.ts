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

/** Every option of `fields` from `given` or its default; the first out of bounds is refused, named. */
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

/** One field per numeric option of `T`. */
export type Numbers<T> = Readonly<{
  [K in keyof T as Required<T>[K] extends number ? K : never]-?: NumberField;
}>;
