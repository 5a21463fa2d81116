import { CREATION_MOVES, creationMove } from '../core/invoice-record.store';

describe('creation-state moves', () => {
  it('writes the target state with the fields of the move, from the states given', () => {
    const at = new Date(0);
    expect(creationMove(['pending'], 'unknown', { unknownSince: at })).toEqual({
      from: ['pending'],
      patch: { creationState: 'unknown', unknownSince: at },
    });
    expect(
      creationMove(['pending', 'unknown', 'failed'], 'created', {
        gatewayId: 'g1',
        gatewayUuid: null,
        gatewayInvoiceId: null,
        attentionReason: null,
      }).patch,
    ).toEqual({
      creationState: 'created',
      gatewayId: 'g1',
      gatewayUuid: null,
      gatewayInvoiceId: null,
      attentionReason: null,
    });
  });

  it('refuses a move the table does not list, and a move from nothing', () => {
    const failed = { openOrderId: null, failureReason: 'x' } as const;
    expect(() => creationMove(['created'], 'failed', failed)).toThrow(/no move from created to failed/);
    expect(() => creationMove(['failed'], 'pending', {})).toThrow(/no move from failed to pending/);
    expect(() => creationMove([], 'unknown', {})).toThrow(/from nothing to unknown/);
  });

  it('leaves `created` final: no move out of it', () => {
    const out = Object.entries(CREATION_MOVES).filter(([, from]) => from.includes('created'));
    expect(out).toEqual([]);
  });
});
