import { INVOICE_STATUS_NAMES } from '../gateway/status';
import { statusTone } from './order-invoices.view';

describe('statusTone', () => {
  it('colours each listed code from the status table', () => {
    const tones = Object.fromEntries(
      Object.keys(INVOICE_STATUS_NAMES).map((code) => [code, statusTone(Number(code))]),
    );
    expect(tones).toEqual({
      1: 'pending',
      2: 'pending',
      3: 'pending',
      4: 'pending',
      5: 'paid',
      6: 'closed',
      7: 'paid',
      8: 'pending',
      9: 'closed',
      10: 'pending',
      12: 'closed',
      15: 'expired',
      16: 'closed',
    });
  });

  it('no status yet, or a code the spec does not list: unknown', () => {
    expect(statusTone(null)).toBe('unknown');
    expect(statusTone(11)).toBe('unknown');
  });
});
