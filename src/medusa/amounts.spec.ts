import { MoneyFormatError } from '../gateway/money';
import { medusaAmountToCents } from './order';
import { centsToMedusaAmount } from './runtime';

describe('Medusa amounts ↔ cents', () => {
  it('reads every shape of BigNumberInput exactly', () => {
    expect(medusaAmountToCents(134.8)).toBe(13480);
    expect(medusaAmountToCents('134.80')).toBe(13480);
    // A raw value as Medusa stores it (precision 20), and a BigNumber with raw and numeric.
    expect(medusaAmountToCents({ value: '134.80000000000000000000', precision: 20 })).toBe(13480);
    expect(medusaAmountToCents({ numeric: 0.30000000000000004, raw: { value: '0.3' } })).toBe(30);
    expect(medusaAmountToCents({ toFixed: () => '1000000.01' })).toBe(100000001);
    // 0.1 + 0.2 as a float is not an amount of cents: refused, never rounded into one.
    expect(() => medusaAmountToCents(0.1 + 0.2)).toThrow(MoneyFormatError);
  });

  it('refuses what is not an amount, naming the field', () => {
    expect(() => medusaAmountToCents(undefined)).toThrow(/amount: not an amount/);
    expect(() => medusaAmountToCents({} as never, 'refund')).toThrow(/refund: not an amount/);
    expect(() => medusaAmountToCents('12.345')).toThrow(/fraction of a cent/);
  });

  it('gives Medusa major units', () => {
    expect(centsToMedusaAmount(13480)).toBe(134.8);
    expect(centsToMedusaAmount(5990)).toBe(59.9);
    expect(centsToMedusaAmount(1)).toBe(0.01);
  });
});
