import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALERT_KINDS } from '../../src/core/events';
import { GATEWAY_ERROR_HTTP_STATUS } from '../../src/errors/http-answers';
import { STATUS_VIEWS } from '../../src/settings/admin-invoices.service';
import { ADMIN_ERROR_CODES } from '../../src/settings/admin-problems';

/** The keys of one language's catalog files (plain ES modules the browser loads; read here as text). */
function keys(...files: string[]): Set<string> {
  const text = files
    .map((f) => readFileSync(join(__dirname, '../../src/admin-ui/assets', f), 'utf8'))
    .join('\n');
  return new Set([...text.matchAll(/^ {2}([A-Za-z_0-9]+):/gm)].map((m) => m[1]));
}

const NOTE_CODES = ['unchanged', 'backwards', 'unknown_code', 'paid_after_close', 'amount_mismatch'];

describe('the admin page says every API code in both languages', () => {
  const pt = keys('messages-pt.js', 'errors-pt.js');
  const en = keys('messages-en.js', 'errors-en.js');

  it('has the same texts in Portuguese and English', () => {
    expect([...pt].filter((k) => !en.has(k))).toEqual([]);
    expect([...en].filter((k) => !pt.has(k))).toEqual([]);
  });

  it('words every status of the status table, error code, service failure, alert and history note', () => {
    const needed = [
      ...STATUS_VIEWS.map((status) => `status_${status?.key}`),
      ...ADMIN_ERROR_CODES.filter((c) => c !== 'action_not_allowed').map((c) => `err_${c}`),
      'err_action',
      'err_action_not_created',
      'err_action_wrong_method',
      'err_action_nothing_left',
      ...Object.keys(GATEWAY_ERROR_HTTP_STATUS).map((k) => `gw_${k}`),
      ...ALERT_KINDS.flatMap((k) => [`alert_${k}`, `alertText_${k}`]),
      ...NOTE_CODES.map((c) => `note_${c}`),
      ...['changeDueDate', 'cancel', 'refund'].map((a) => `action_${a}`),
    ];
    expect(needed.filter((k) => !pt.has(k))).toEqual([]);
    expect(needed.filter((k) => !en.has(k))).toEqual([]);
  });
});
