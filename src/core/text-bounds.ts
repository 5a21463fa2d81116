/**
 * The one rule for text the module takes from outside (the host's order, the storefront's choices, route
 * parameters): it must be a string, at most a stated length once trimmed, and free of control characters.
 *
 * Control characters are refused, never stripped: a name with a NUL, a line break, an ESC or a bidi override
 * (U+202E, which shows "gpj.exe" as "exe.jpg") is not what the customer meant to send, PostgreSQL refuses NUL in
 * text, and a silently changed value could no longer be found by the value the host holds.
 */

/**
 * What is refused anywhere in a value: C0 and C1 controls (NUL, TAB, CR, LF, ESC, DEL...), unpaired surrogates,
 * the bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the line and paragraph
 * separators (U+2028, U+2029).
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\p{Cs}\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

/** The problem stated for {@link CONTROL_CHARACTERS}, the same wherever it is found. */
export const CONTROL_CHARACTERS_PROBLEM =
  'must not contain control characters (NUL, line breaks, tabs, ESC, bidi overrides such as U+202E)';

/** Where problems go: `FieldErrorCollector` of the checkout, or any collector with the same `add`. */
export interface ProblemSink {
  add(field: string, problem: string): void;
}

/** How one text field is bounded. */
export interface TextRule {
  /** Most characters (UTF-16 code units, as the service counts them), after trimming. */
  max: number;
  /** Absent or blank is a problem ("is required"). Default false. */
  required?: boolean;
  /** Named in the "too long" problem, so a store knows which option raises it (`checkout.textLimits.name`). */
  option?: string;
}

/** What is wrong with a value under `rule`, or `null`; `undefined`, `null` and blank count as absent. */
export function textProblem(value: unknown, rule: TextRule): string | null {
  if (value === undefined || value === null) return rule.required ? 'is required' : null;
  if (typeof value !== 'string') return 'must be a string';
  if (CONTROL_CHARACTERS.test(value)) return CONTROL_CHARACTERS_PROBLEM;
  const text = value.trim();
  if (text === '') return rule.required ? 'is required' : null;
  if (text.length > rule.max) {
    return `must be at most ${rule.max} characters${rule.option ? ` (${rule.option})` : ''}`;
  }
  return null;
}

/**
 * Reads one text field: the trimmed string, or `undefined` when it is absent, blank or has a problem (which goes
 * to `errors` under `field`).
 */
export function readText(
  errors: ProblemSink,
  field: string,
  value: unknown,
  rule: TextRule,
): string | undefined {
  const problem = textProblem(value, rule);
  if (problem) {
    errors.add(field, problem);
    return undefined;
  }
  const text = typeof value === 'string' ? value.trim() : '';
  return text === '' ? undefined : text;
}

/** Longest id accepted in a route or query (record ids are 36 characters; order ids at most 128). */
const MAX_ID_LENGTH = 128;

/** What is wrong with an id from a route or a query (required, at most {@link MAX_ID_LENGTH}), or `null`. */
export function idProblem(value: unknown): string | null {
  if (typeof value === 'string' && value !== value.trim()) return 'must not start or end with spaces';
  return textProblem(value, { max: MAX_ID_LENGTH, required: true });
}

/**
 * Text cut to at most `max` UTF-16 code units, then `marker` when something was cut, for text kept only to be read
 * (reasons, notes, the service's messages), whose length must never fail a write; text the module acts on is checked
 * with {@link textProblem} instead. `null` and `undefined` are `null`.
 */
export function clip(value: string, max: number, marker?: string): string;
export function clip(value: string | null | undefined, max: number, marker?: string): string | null;
export function clip(value: string | null | undefined, max: number, marker = ''): string | null {
  if (value === null || value === undefined) return null;
  return value.length > max ? `${value.slice(0, max)}${marker}` : value;
}
