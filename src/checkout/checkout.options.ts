/** A referrer namespace: 1 to 16 lowercase letters and digits (no `:`, which ends it in a referrer). */
export function isReferrerNamespace(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z0-9]{1,16}$/.test(value);
}
