import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** The suite's one wait: its poll interval is the only timer a test waits on. This file's samples are no test. */
const ALLOWED = ['test/support/wait-for.ts', 'test/docs/no-fixed-sleeps.spec.ts'];

/**
 * The fixed sleeps: a timer whose only job is to resolve a promise (`new Promise((r) => setTimeout(r, 100))`, a
 * `sleep(ms)` helper), `timers/promises`, Playwright's `waitForTimeout`. A timer kept to be cleared when something
 * arrives (a deadline) is not one, nor `setImmediate` (a turn of the event loop, not a length of time).
 */
const SLEEPS: Array<[string, RegExp]> = [
  ['a timer resolving a promise', /(?<!=\s*)\bsetTimeout\(\s*[A-Za-z_$][\w$]*\s*,/],
  ['timers/promises', /['"](?:node:)?timers\/promises['"]/],
  ["Playwright's waitForTimeout", /\.waitForTimeout\(/],
  ['a sleep helper', /\b(?:sleep|pause|delay)\(\s*[\w.]/],
];

/** Every test source: test/** and the unit specs beside the module code. */
function testSources(dir: string, specsOnly: boolean): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testSources(path, specsOnly);
    const source = /\.(ts|tsx|js|mjs)$/.test(entry.name);
    return source && (!specsOnly || /\.spec\.tsx?$/.test(entry.name)) ? [path] : [];
  });
}

/** `file:line: kind` for each fixed sleep in `text` (comments left out: they may name what they replace). */
export function fixedSleeps(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '));
  return code.split('\n').flatMap((line, i) => {
    const statement = line.replace(/^\s*\/\/.*$/, '');
    return SLEEPS.filter(([, pattern]) => pattern.test(statement)).map(
      ([kind]) => `${file}:${i + 1}: ${kind}`,
    );
  });
}

describe('no fixed sleep in a test', () => {
  it('finds none in test/** and src/**/*.spec.ts: every wait is "until this holds, or fail at T"', () => {
    const files = [...testSources(join(ROOT, 'test'), false), ...testSources(join(ROOT, 'src'), true)];
    const found = files
      .map((path) => relative(ROOT, path).split('\\').join('/'))
      .filter((file) => !ALLOWED.includes(file))
      .flatMap((file) => fixedSleeps(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('would find each kind of fixed sleep, and not a deadline or a turn of the event loop', () => {
    const sleeps = [
      'await new Promise((r) => setTimeout(r, 300));',
      'await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));',
      "import { setTimeout as sleep } from 'node:timers/promises';",
      'await page.waitForTimeout(100);',
      'await sleep(300);',
      'await pause(CLAIM_HEADROOM_MS + 50);',
    ];
    expect(sleeps.map((line) => fixedSleeps('x.ts', line).length)).toEqual(sleeps.map(() => 1));
    const waits = [
      'const timer = setTimeout(r, left);',
      'await new Promise((r) => setImmediate(r));',
      'setTimeout(() => controller.abort(), 100);',
      '// was: await new Promise((r) => setTimeout(r, 300));',
      "await waitFor(() => rows.length === 1, 5_000, 'one row');",
    ];
    expect(waits.flatMap((line) => fixedSleeps('x.ts', line))).toEqual([]);
  });
});
