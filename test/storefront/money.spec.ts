import { decimalOf, installmentsOf, parseCents } from '../../src/storefront/money';

describe('storefront money: integer cents from exact decimals', () => {
  it('reads the view amount exactly', () => {
    expect(parseCents('123.45')).toBe(12345);
    expect(parseCents('0.1')).toBe(10);
    expect(parseCents('7')).toBe(700);
    for (const bad of ['1.234', '-1.00', '1,00', '', ' ', 'NaN', '1e3', null])
      expect(parseCents(bad)).toBeNull();
  });

  it('writes cents back as the decimal Intl formats', () => {
    expect(decimalOf(12345)).toBe('123.45');
    expect(decimalOf(5)).toBe('0.05');
    expect(decimalOf(100)).toBe('1.00');
  });

  it('splits installments so they add up to the total, the first taking the remainder', () => {
    expect(installmentsOf(10000, 3)).toEqual({ first: 3334, rest: 3333 });
    for (const [total, n] of [
      [10001, 7],
      [99, 12],
      [123456, 5],
    ]) {
      const { first, rest } = installmentsOf(total, n);
      expect(first + rest * (n - 1)).toBe(total);
      expect(first - rest).toBeLessThan(n);
    }
  });
});
