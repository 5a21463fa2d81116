import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json';

/** `levels` objects (or arrays) nested in one another, the innermost holding a string. */
function nested(levels: number, kind: 'object' | 'array' = 'object'): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = kind === 'object' ? { a: value } : [value];
  return value;
}

describe('exceedsJsonDepth', () => {
  it('allows exactly the maximum number of levels and refuses one more, in objects and arrays', () => {
    for (const kind of ['object', 'array'] as const) {
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH, kind))).toBe(false);
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1, kind))).toBe(true);
    }
    expect(exceedsJsonDepth(nested(3), 3)).toBe(false);
    expect(exceedsJsonDepth(nested(4), 3)).toBe(true);
  });

  it('finds the deep branch among shallow siblings, through arrays and objects mixed', () => {
    const body = { a: 1, b: [1, 'x', null, { c: [] }], deep: [{ x: nested(5) }], z: 'end' };
    // body → deep → [0] → x → 5 levels: 8 levels in all.
    expect(exceedsJsonDepth(body, 8)).toBe(false);
    expect(exceedsJsonDepth(body, 7)).toBe(true);
  });

  it('reads primitives and null as no nesting at all', () => {
    for (const value of [null, undefined, 0, 'text', true]) expect(exceedsJsonDepth(value, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
  });

  it('walks a hostile 100,000-level body without overflowing the call stack', () => {
    const text = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(exceedsJsonDepth(JSON.parse(text))).toBe(true);
  });
});
