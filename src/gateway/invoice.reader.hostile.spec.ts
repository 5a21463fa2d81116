import fc from 'fast-check';
import { currentBilletResponse, legacyDueDateResponse } from '../../test/gateway/fixtures';
import { GatewayResponseError } from './errors';
import { normalizeInvoice } from './invoice.reader';
import { centsToDecimalString, formatBrl } from './money';

/** Lets a test put a wrong type where the wire type says otherwise. */
const loose = (o: object) => o as unknown as Record<string, unknown>;

describe('normalizeInvoice: unreadable payloads', () => {
  const cases: Array<[string, (b: ReturnType<typeof currentBilletResponse>) => void, RegExp]> = [
    ['missing id', (b) => delete (b.invoice as Partial<typeof b.invoice>).id, /invoice\.id: missing/],
    ['missing invoice_id', (b) => (loose(b.invoice).invoice_id = ''), /invoice\.invoice_id/],
    ['missing status', (b) => delete (b.invoice as Partial<typeof b.invoice>).status, /invoice\.status/],
    ['non-integer code', (b) => (loose(b.invoice.status).code = 'x'), /status\.code/],
    [
      'code-less non-canceled status',
      (b) => delete (b.invoice.status as Partial<typeof b.invoice.status>).code,
      /status\.code: missing/,
    ],
    ['three-place amount', (b) => (b.invoice.amount.gross = 10.123), /invoice\.amount\.gross/],
    ['garbage amount', (b) => (b.invoice.amount.shipping = 'ten'), /invoice\.amount\.shipping/],
    ['object amount', (b) => (loose(b.invoice.amount).net = {}), /invoice\.amount\.net/],
  ];
  it.each(cases)('%s → GatewayResponseError naming the field', (_name, mutate, pattern) => {
    const body = currentBilletResponse();
    mutate(body);
    expect(() => normalizeInvoice(body, 'createInvoice')).toThrow(GatewayResponseError);
    expect(() => normalizeInvoice(body, 'createInvoice')).toThrow(pattern);
    expect(() => normalizeInvoice(body, 'createInvoice')).toThrow(/^createInvoice\(\): unreadable/);
  });

  it('refuses non-objects', () => {
    for (const value of [null, undefined, 'text', 3, [], true]) {
      expect(() => normalizeInvoice(value)).toThrow(GatewayResponseError);
    }
  });
});

describe('normalizeInvoice: properties', () => {
  it('never throws anything but GatewayResponseError, whatever JSON it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          normalizeInvoice(value);
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayResponseError);
        }
      }),
    );
  });

  it('survives any field of a real payload replaced by arbitrary JSON: an Invoice or a GatewayResponseError', () => {
    const paths = collectPaths(currentBilletResponse()).concat(collectPaths(legacyDueDateResponse()));
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue(), (path, value) => {
        const body = path[0] === 'invoice' ? currentBilletResponse() : legacyDueDateResponse();
        setPath(body, path, value);
        try {
          const inv = normalizeInvoice(body);
          for (const cents of Object.values(inv.amounts))
            expect(cents === null || Number.isSafeInteger(cents)).toBe(true);
          expect(Number.isInteger(inv.status.code)).toBe(true);
          expect(typeof inv.id).toBe('string');
          expect(typeof inv.invoiceId).toBe('string');
          expect(inv.method === null || ['pix', 'billet', 'card'].includes(inv.method)).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(GatewayResponseError);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads every amount form to the same cents (number, decimal string, formatted BRL)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99_999_999_999 }),
        fc.integer({ min: 0, max: 2 }),
        (cents, form) => {
          const body = currentBilletResponse();
          const text = centsToDecimalString(cents);
          const value = form === 0 ? Number(text) : form === 1 ? text : formatBrl(cents);
          loose(body.invoice.amount).gross = value;
          expect(normalizeInvoice(body).amounts.grossCents).toBe(cents);
        },
      ),
    );
  });
});

function collectPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [prefix];
  const out: string[][] = prefix.length ? [prefix] : [];
  for (const [key, child] of Object.entries(value)) out.push(...collectPaths(child, [...prefix, key]));
  return out;
}

function setPath(target: unknown, path: string[], value: unknown): void {
  let node = target as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1]] = value;
}
