import { STATUS_STAGES } from '../../src/domain/status-table';
import { decideTransition } from '../../src/core/status-report';
import { STATUS_TABLE, KnownInvoiceStatusCode } from '../../src/domain/status-table';

const name = (code: KnownInvoiceStatusCode) => `${code} ${STATUS_TABLE[code].name.toLowerCase()}`;

/** The transition table as docs/webhooks.md shows it, built from the data so the two cannot drift apart. */
export function transitionTableMarkdown(): string {
  const lines = [
    '| current status | a report of these codes is applied | applied and alerted (`paid_after_cancel`) |',
    '|---|---|---|',
  ];
  for (const row of transitionTable()) {
    const applied = STATUS_STAGES.filter((c) => row.to[c] === 'apply');
    const alerted = STATUS_STAGES.filter((c) => row.to[c] === 'alert');
    lines.push(
      `| ${row.from === null ? '(none yet)' : name(row.from)} | ${applied.join(', ') || '—'} | ${alerted.join(', ') || '—'} |`,
    );
  }
  return lines.join('\n');
}

/** One cell of {@link transitionTable}: `apply`, `alert` (applied and raised) or `refuse` (recorded only). */
export type TransitionCell = 'apply' | 'alert' | 'refuse';

/**
 * The whole table as data: for each listed `from` code (and `null`, no status yet) and each listed `to` code, what
 * {@link decideTransition} does. Unlisted `to` codes are always `refuse`.
 */
export function transitionTable(): Array<{
  from: KnownInvoiceStatusCode | null;
  to: Record<number, TransitionCell>;
}> {
  const froms: Array<KnownInvoiceStatusCode | null> = [null, ...STATUS_STAGES];
  return froms.map((from) => {
    const to: Record<number, TransitionCell> = {};
    for (const code of STATUS_STAGES) {
      if (from === code) continue;
      const d = decideTransition(from, code);
      to[code] = d.apply ? (d.alert ? 'alert' : 'apply') : 'refuse';
    }
    return { from, to };
  });
}
