import { openToReports } from './delivery-intake';

describe('openToReports', () => {
  it('keeps every record a report can still change open to deliveries, refunded (9) alone closed', () => {
    // Paid (refund, dispute), canceled, denied and error (money arriving late) included.
    for (const code of [null, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16]) expect(openToReports(code)).toBe(true);
    expect(openToReports(9)).toBe(false);
  });
});
