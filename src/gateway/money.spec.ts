import fc from 'fast-check';
import {
  brlStringToCents,
  centsToDecimalString,
  centsToWireNumber,
  decimalStringToCents,
  formatBrl,
  majorUnitsToCents,
  MoneyFormatError,
  toCents,
  ImplausibleAmountError,
  MAX_SERVICE_AMOUNT_CENTS,
  serviceAmountToCents,
  serviceDisplayAmountToCents,
} from './money';
import { PayloadReader } from './payload.reader';

/** The largest amount the wire carries exactly: 15 significant digits. */
const MAX_WIRE_CENTS = 999_999_999_999_999;
const wireCents = fc.integer({ min: -MAX_WIRE_CENTS, max: MAX_WIRE_CENTS });
const anyCents = fc.maxSafeInteger().filter((n) => n >= Number.MIN_SAFE_INTEGER);

describe('money round trips (property)', () => {
  it('cents → decimal string → cents is the identity for every safe integer', () => {
    fc.assert(
      fc.property(anyCents, (cents) => {
        expect(decimalStringToCents(centsToDecimalString(cents))).toBe(cents);
        expect(toCents(centsToDecimalString(cents))).toBe(cents);
      }),
    );
  });

  it('cents → wire number → JSON text → parsed → cents is the identity', () => {
    fc.assert(
      fc.property(wireCents, (cents) => {
        const json = JSON.stringify({ amount: centsToWireNumber(cents) });
        const parsed = JSON.parse(json) as { amount: number };
        expect(toCents(parsed.amount)).toBe(cents);
      }),
    );
  });

  it('the wire number serializes to the exact decimal text, never a float artifact', () => {
    fc.assert(
      fc.property(wireCents, (cents) => {
        const text = JSON.stringify(centsToWireNumber(cents));
        expect(text).toMatch(/^-?\d+(\.\d{1,2})?$/);
        expect(decimalStringToCents(text)).toBe(cents);
      }),
    );
  });

  it('cents → formatBrl → brlStringToCents (and toCents) is the identity', () => {
    fc.assert(
      fc.property(anyCents, (cents) => {
        const text = formatBrl(cents);
        expect(text).toMatch(/^-?R\$ \d{1,3}(\.\d{3})*,\d{2}$/);
        expect(brlStringToCents(text)).toBe(cents);
        expect(toCents(text)).toBe(cents);
      }),
    );
  });

  it('every amount that cannot be represented in cents is refused, never rounded', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 9 }), (units, third) => {
        expect(() => toCents(`${units}.12${third}`)).toThrow(MoneyFormatError);
      }),
    );
  });

  it('float arithmetic artifacts are refused', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }), (value) => {
        const text = String(value);
        const exact = /^-?\d+(\.\d{1,2})?$/.test(text);
        if (exact) expect(toCents(value)).toBe(decimalStringToCents(text));
        else expect(() => toCents(value)).toThrow(MoneyFormatError);
      }),
    );
  });
});

describe('money examples', () => {
  it('reads the three wire forms', () => {
    expect(toCents(10.5)).toBe(1050);
    expect(toCents(0.1)).toBe(10);
    expect(toCents('10.50')).toBe(1050);
    expect(toCents('R$ 1.234,56')).toBe(123456);
    expect(toCents('R$\u00a010,50')).toBe(1050);
    expect(toCents('-R$ 0,50')).toBe(-50);
    const reader = new PayloadReader('op');
    expect(reader.money(null, 'amount')).toBeNull();
    expect(reader.money('', 'amount')).toBeNull();
  });

  it('refuses a bare dotted number with three places instead of reading it as thousands (A1)', () => {
    expect(() => toCents('1.234')).toThrow(MoneyFormatError);
    expect(() => toCents('10.500')).toThrow(MoneyFormatError);
    expect(toCents('R$ 1.234')).toBe(123400);
  });

  it('refuses an amount too large to send exactly as a JSON number', () => {
    expect(centsToWireNumber(MAX_WIRE_CENTS)).toBe(9999999999999.99);
    expect(() => centsToWireNumber(Number.MAX_SAFE_INTEGER)).toThrow(/too large/);
    expect(() => centsToWireNumber(1.5)).toThrow(MoneyFormatError);
  });

  it('refuses junk', () => {
    for (const junk of ['', 'abc', '1e3', '10.', '.5', 'R$', '1,2,3', '12.34.56']) {
      expect(() => toCents(junk)).toThrow(MoneyFormatError);
    }
    expect(() => toCents(Number.NaN)).toThrow(MoneyFormatError);
    expect(() => toCents(1e21)).toThrow(MoneyFormatError);
  });

  it('reads major units as hosts store them, trailing zeros past the cent allowed, fractions of a cent refused', () => {
    expect(majorUnitsToCents(134.8)).toBe(13480);
    expect(majorUnitsToCents(0.1)).toBe(10);
    expect(majorUnitsToCents('134.80000000000000000000')).toBe(13480);
    expect(majorUnitsToCents('7')).toBe(700);
    expect(majorUnitsToCents(-2.5)).toBe(-250);
    for (const bad of ['134.801', 0.001, '1e3', '', 'abc', Number.NaN, 1e21]) {
      expect(() => majorUnitsToCents(bad)).toThrow(MoneyFormatError);
    }
  });

  it('majorUnitsToCents inverts centsToWireNumber for every amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_WIRE_CENTS, max: MAX_WIRE_CENTS }), (cents) => {
        expect(majorUnitsToCents(centsToWireNumber(cents))).toBe(cents);
        expect(majorUnitsToCents(centsToDecimalString(cents) + '000')).toBe(cents);
      }),
    );
  });

  it('an amount from the service must be real money: negative, absurd or non-finite is refused', () => {
    expect(serviceAmountToCents('10.50')).toBe(1050);
    expect(serviceAmountToCents(0)).toBe(0);
    expect(serviceAmountToCents(MAX_SERVICE_AMOUNT_CENTS / 100)).toBe(MAX_SERVICE_AMOUNT_CENTS);
    for (const bad of [-50, '-0.01', 'R$ -1,00', MAX_SERVICE_AMOUNT_CENTS / 100 + 0.01]) {
      expect(() => serviceAmountToCents(bad)).toThrow(ImplausibleAmountError);
    }
    expect(() => serviceAmountToCents(Number.POSITIVE_INFINITY)).toThrow(MoneyFormatError);
    expect(() => serviceAmountToCents(Number.NaN)).toThrow(MoneyFormatError);
  });

  it('an amount only shown may be negative; finer than a cent it is unknown, never rounded; junk is still refused', () => {
    expect(serviceDisplayAmountToCents(-1.49)).toBe(-149);
    expect(serviceDisplayAmountToCents('R$ -1,49')).toBe(-149);
    for (const fine of [0.0198, '1.9802', -0.005, 1e-7, '1.490'])
      expect(serviceDisplayAmountToCents(fine)).toBeNull();
    for (const absurd of [MAX_SERVICE_AMOUNT_CENTS / 100 + 0.01, -(MAX_SERVICE_AMOUNT_CENTS / 100) - 0.01]) {
      expect(() => serviceDisplayAmountToCents(absurd)).toThrow(ImplausibleAmountError);
    }
    for (const junk of ['ten', Number.NaN, 1e21]) {
      expect(() => serviceDisplayAmountToCents(junk)).toThrow(MoneyFormatError);
    }
  });
});
