import { clip, CONTROL_CHARACTERS_PROBLEM, idProblem, readText, textProblem } from './text-and-days';

describe('text bounds: one rule for text from outside', () => {
  const rule = { max: 5, option: 'checkout.textLimits.name' };

  it.each([
    ['NUL', 'a\u0000b'],
    ['BEL', 'a\u0007b'],
    ['CR/LF', 'a\r\nb'],
    ['TAB', 'a\tb'],
    ['ESC', '\u001b[31m'],
    ['DEL', 'a\u007fb'],
    ['C1 (NEL)', 'a\u0085b'],
    ['right-to-left override U+202E', 'a\u202Eb'],
    ['first strong isolate U+2068', 'a\u2068b'],
    ['line separator U+2028', 'a\u2028b'],
    ['unpaired surrogate', 'a\ud800b'],
  ])('refuses %s anywhere in the value', (_, value) => {
    expect(textProblem(value, rule)).toBe(CONTROL_CHARACTERS_PROBLEM);
  });

  it('accepts accents, emoji and inner spaces; measures after trimming; names the option', () => {
    expect(textProblem('  José ', rule)).toBeNull();
    expect(textProblem('😀😀', rule)).toBeNull();
    expect(textProblem('abcdef', rule)).toBe('must be at most 5 characters (checkout.textLimits.name)');
  });

  it('types: a number, an object or an array is "must be a string"; absent is fine unless required', () => {
    for (const value of [42, {}, ['x'], true]) expect(textProblem(value, rule)).toBe('must be a string');
    expect(textProblem(undefined, rule)).toBeNull();
    expect(textProblem('  ', { ...rule, required: true })).toBe('is required');
  });

  it('readText sends problems to the sink under the field and returns the trimmed text', () => {
    const seen: string[] = [];
    const sink = { add: (field: string, problem: string) => seen.push(`${field} ${problem}`) };
    expect(readText(sink, 'order.customer.name', ' Ana ', rule)).toBe('Ana');
    expect(readText(sink, 'order.customer.name', 'A\u0000', rule)).toBeUndefined();
    expect(seen).toEqual([`order.customer.name ${CONTROL_CHARACTERS_PROBLEM}`]);
  });

  it('ids: required, at most 128, no control characters, no surrounding spaces', () => {
    expect(idProblem('8d3c1f7e-0000-4000-8000-000000000000')).toBeNull();
    expect(idProblem('\u0000')).toBe(CONTROL_CHARACTERS_PROBLEM);
    expect(idProblem('x'.repeat(129))).toMatch(/at most 128/);
    expect(idProblem(' x')).toMatch(/spaces/);
    expect(idProblem('')).toBe('is required');
  });

  describe('clip: text cut to fit where it is kept', () => {
    it('keeps text that fits as it is, cuts what does not to max characters', () => {
      expect(clip('abc', 3)).toBe('abc');
      expect(clip('abcd', 3)).toBe('abc');
      expect(clip('', 3)).toBe('');
    });

    it('adds the marker only when it cut, on top of max', () => {
      expect(clip('abcd', 3, '…')).toBe('abc…');
      expect(clip('abc', 3, '…')).toBe('abc');
    });

    it('null and undefined are null', () => {
      expect(clip(null, 3)).toBeNull();
      expect(clip(undefined, 3)).toBeNull();
    });
  });
});
