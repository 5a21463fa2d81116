/**
 * The suite's one wait: until `check` holds, or fail at `timeoutMs` naming `what`. A test waits for a condition,
 * never for a length of time (a loaded machine makes any length too short); a test that must show something did
 * NOT happen waits for a positive sign that it had its chance (a round completed, a later event processed) and then
 * asserts. The timeout guards against hanging; it is not a speed assertion, so it is generous.
 *
 * Returns what `check` returned once it held, so a test can wait for a value (a row, an answer) and use it.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
  what = 'condition',
  intervalMs = 25,
): Promise<Exclude<T, false | null | undefined | 0 | ''>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Exclude<T, false | null | undefined | 0 | ''>;
    if (Date.now() > until) throw new Error(`${what} not met within ${timeoutMs} ms`);
    // The poll interval: the only timer a test waits on (test/docs/no-fixed-sleeps.spec.ts allows it here alone).
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
