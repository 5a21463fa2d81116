import { STATUS_STAGES, transitionTable } from '../../src/core/status-table';
import { INVOICE_STATUS_NAMES, KnownInvoiceStatusCode } from '../../src/gateway/status';

const name = (code: KnownInvoiceStatusCode) => `${code} ${INVOICE_STATUS_NAMES[code].toLowerCase()}`;

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
