import fc from 'fast-check';
import { STATUS_TABLE } from '../../src/domain/status-table';
import { decideTransition, openToReports, transitionOfRow } from '../../src/core/status-report';
import { STATUS_STAGES, statusRow } from '../../src/domain/status-table';
import { transitionTable } from './transition-table.markdown';
import { transitionText } from '../../src/core/status-report';

/** Folds reports through the table the way InvoiceStatusService does: only applied reports move the invoice. */
function finalState(reports: readonly number[], start: number | null = null): number | null {
  let current = start;
  for (const code of reports) if (decideTransition(current, code).apply) current = code;
  return current;
}

/** A legal life of an invoice: a first code, then each next code one the table lets the previous one move to. */
const legalSequence = fc
  .tuple(fc.constantFrom(...STATUS_STAGES), fc.array(fc.nat(), { maxLength: 12 }))
  .map(([first, picks]) => {
    const seq: number[] = [first];
    for (const pick of picks) {
      const prev = seq[seq.length - 1];
      const next = STATUS_STAGES.filter((c) => decideTransition(prev, c).apply);
      if (next.length === 0) break;
      seq.push(next[pick % next.length]);
    }
    return seq;
  });

describe('status transitions', () => {
  it('lists every code of spec §3 exactly once', () => {
    expect([...STATUS_STAGES].sort((a, b) => a - b)).toEqual(
      Object.keys(STATUS_TABLE)
        .map(Number)
        .sort((a, b) => a - b),
    );
  });

  it.each([
    [5, 1, 'paid → awaiting payment'],
    [9, 5, 'refunded → paid'],
    [5, 12, 'a stale denied after paid'],
    [2, 1, 'awaiting after processing'],
    [5, 6, 'canceled after paid'],
    [4, 2, 'processing after authorized'],
    [8, 5, 'paid after partially refunded'],
  ])('refuses %i → %i (%s) and says it was backwards', (from, to) => {
    const d = decideTransition(from, to);
    expect(d).toEqual({ from, to, verdict: 'backwards', apply: false });
    expect(transitionText(d)).toMatch(/^backwards/);
  });

  it.each([
    [null, 1],
    [1, 5],
    [1, 2],
    [2, 5],
    [2, 12],
    [1, 15],
    [15, 5],
    [1, 6],
    [5, 8],
    [8, 9],
    [5, 7],
    [7, 9],
    [5, 10],
    [1, 9],
  ])('applies %p → %i without an alert', (from, to) => {
    expect(decideTransition(from, to)).toEqual({ from, to, verdict: 'apply', apply: true });
    expect(transitionText(decideTransition(from, to))).toBeNull();
  });

  it.each([6, 12, 16])('applies paid after the closed state %i and raises paid_after_cancel', (from) => {
    const d = decideTransition(from, 5);
    expect(d).toEqual({ from, to: 5, verdict: 'paid_after_close', apply: true, alert: 'paid_after_cancel' });
    expect(transitionText(d)).toContain(String(from));
  });

  it.each([11, 13, 14, 0, -1, 17, 99])('records the unknown code %i and never applies it', (code) => {
    for (const from of [null, ...STATUS_STAGES]) {
      const d = decideTransition(from, code);
      expect(d).toEqual({ from, to: code, verdict: 'unknown_code', apply: false });
      expect(transitionText(d)).toContain(`unknown status code ${code}`);
    }
  });

  it('treats a repeated code as unchanged', () => {
    for (const code of STATUS_STAGES) {
      expect(decideTransition(code, code)).toEqual({
        from: code,
        to: code,
        verdict: 'unchanged',
        apply: false,
      });
      expect(transitionText(decideTransition(code, code))).toMatch(/^unchanged/);
    }
  });

  it('exports the table as data, agreeing with decideTransition cell by cell', () => {
    const table = transitionTable();
    expect(table).toHaveLength(STATUS_STAGES.length + 1);
    for (const row of table) {
      for (const [to, cell] of Object.entries(row.to)) {
        const d = decideTransition(row.from, Number(to));
        expect(cell).toBe(d.apply ? (d.alert ? 'alert' : 'apply') : 'refuse');
      }
    }
    expect(table.find((r) => r.from === 6)?.to[5]).toBe('alert');
    expect(table.find((r) => r.from === 5)?.to[1]).toBe('refuse');
  });

  it('property: any shuffled order of a legal sequence ends in its furthest legal state', () => {
    fc.assert(
      fc.property(
        legalSequence.chain((seq) =>
          fc.tuple(fc.constant(seq), fc.shuffledSubarray(seq, { minLength: seq.length })),
        ),
        ([seq, shuffled]) => {
          expect(finalState(seq)).toBe(seq[seq.length - 1]);
          expect(finalState(shuffled)).toBe(seq[seq.length - 1]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('property: duplicates and unknown codes mixed into a shuffled sequence change nothing', () => {
    const noisy = legalSequence.chain((seq) =>
      fc.tuple(
        fc.constant(seq),
        fc.array(fc.constantFrom(...seq, 11, 13, 14, 42), { maxLength: 20 }),
        fc.nat(),
      ),
    );
    fc.assert(
      fc.property(noisy, ([seq, extra, seed]) => {
        const all = [...seq, ...extra];
        // Deterministic shuffle driven by fast-check's seed, so a failure shrinks and replays.
        let s = seed;
        for (let i = all.length - 1; i > 0; i--) {
          s = (s * 1103515245 + 12345) % 2 ** 31;
          const j = s % (i + 1);
          [all[i], all[j]] = [all[j], all[i]];
        }
        expect(finalState(all)).toBe(seq[seq.length - 1]);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: an applied move never goes to an earlier stage', () => {
    fc.assert(
      fc.property(fc.constantFrom(...STATUS_STAGES), fc.integer({ min: -5, max: 30 }), (from, to) => {
        const d = decideTransition(from, to);
        if (d.apply) expect(statusRow(to)!.stage).toBeGreaterThan(statusRow(from)!.stage);
      }),
    );
  });

  it('gives a history row its verdict back from the two codes it stores, and words each one but a plain move', () => {
    const verdicts = new Set<string>();
    for (const from of [null, ...STATUS_STAGES, 11]) {
      for (const to of [...STATUS_STAGES, 11, 13]) {
        const decided = decideTransition(from, to);
        expect(transitionOfRow({ fromCode: from, toCode: to })).toEqual(decided);
        expect(transitionText(decided) === null).toBe(decided.verdict === 'apply');
        verdicts.add(decided.verdict);
      }
    }
    expect([...verdicts].sort()).toEqual([
      'apply',
      'backwards',
      'paid_after_close',
      'unchanged',
      'unknown_code',
    ]);
    expect(transitionOfRow({ fromCode: 5, toCode: null })).toBeNull();
  });
});

describe('openToReports', () => {
  it('keeps every record a report can still change open to deliveries, refunded (9) alone closed', () => {
    // Paid (refund, dispute), canceled, denied and error (money arriving late) included.
    for (const code of [null, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 16]) expect(openToReports(code)).toBe(true);
    expect(openToReports(9)).toBe(false);
  });
});
