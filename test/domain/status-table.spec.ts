import {
  type StatusFlag,
  InvoiceStatusCode,
  STATUS_STAGES,
  STATUS_TABLE,
  sessionStatusOfCode,
  statusIs,
  statusRow,
} from '../../src/domain/status-table';
import { PAYMENT_STATE_OF_CODE } from '../../src/vendure/constants';

/** The codes whose row has `flag`, in code order. */
const codesWhere = (flag: StatusFlag) =>
  STATUS_STAGES.filter((code) => statusIs(code, flag)).sort((a, b) => a - b);

describe('the status table', () => {
  it('keeps the wire codes of spec §3 and their names', () => {
    expect(InvoiceStatusCode).toEqual({
      AwaitingPayment: 1,
      Processing: 2,
      Scheduled: 3,
      Authorized: 4,
      Paid: 5,
      Canceled: 6,
      AwaitingRefund: 7,
      PartiallyRefunded: 8,
      Refunded: 9,
      Contested: 10,
      Denied: 12,
      Overdue: 15,
      Error: 16,
    });
    expect(STATUS_TABLE[12].name).toBe('Payment denied');
    expect(Object.values(STATUS_TABLE).map((row) => row.code)).toEqual(
      Object.values(InvoiceStatusCode).sort((a, b) => a - b),
    );
  });

  it('says what each status allows, as the spec does (§4.3, A8, A9, A11)', () => {
    expect(codesWhere('open')).toEqual([1, 2, 3, 4, 15]);
    expect(codesWhere('cancellable')).toEqual([1, 2, 3, 4, 15]);
    expect(codesWhere('dueDateMovable')).toEqual([1, 15]);
    expect(codesWhere('refundable')).toEqual([5, 8]);
    expect(codesWhere('trackable')).toEqual([4, 5, 8]);
    expect(codesWhere('releasesOrder')).toEqual([6, 12, 16]);
    expect(codesWhere('watched')).toEqual([1, 2, 3, 4, 7, 15]);
  });

  it('allows nothing for no status yet or a code the spec does not list', () => {
    for (const code of [null, undefined, 0, 11, 13, 14, 17]) {
      expect(statusRow(code)).toBeNull();
      expect(statusIs(code, 'open')).toBe(false);
      expect(statusIs(code, 'releasesOrder')).toBe(false);
    }
  });

  it('orders the codes by stage as the transition table applies them', () => {
    expect(STATUS_STAGES).toEqual([1, 15, 2, 3, 4, 12, 16, 6, 5, 7, 8, 10, 9]);
  });

  it("gives Vendure's payment states from the rows", () => {
    expect(PAYMENT_STATE_OF_CODE).toEqual({
      4: 'Authorized',
      5: 'Settled',
      7: 'Settled',
      8: 'Settled',
      9: 'Settled',
      10: 'Settled',
      6: 'Declined',
      12: 'Declined',
      16: 'Declined',
    });
  });

  it('never captures or authorizes money taken for another amount: a person decides', () => {
    const { Paid, Authorized, AwaitingPayment, Refunded } = InvoiceStatusCode;
    expect(sessionStatusOfCode(Paid, false)).toBe('captured');
    expect(sessionStatusOfCode(Paid, true)).toBe('requires_more');
    expect(sessionStatusOfCode(Authorized, true)).toBe('requires_more');
    expect(sessionStatusOfCode(Refunded, true)).toBe('requires_more');
    // No money taken: the mismatch changes nothing.
    expect(sessionStatusOfCode(AwaitingPayment, true)).toBe(sessionStatusOfCode(AwaitingPayment, false));
    expect(sessionStatusOfCode(999, false)).toBeNull();
    expect(sessionStatusOfCode(null, true)).toBeNull();
  });
});
