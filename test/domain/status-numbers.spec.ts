import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** A status code of spec §3 as a literal: 0 to 16, not part of a longer number (an HTTP 404 is not one). */
const CODE = String.raw`(?:1[0-6]|[0-9])(?![\d.])`;

/** Ways module code has held status knowledge of its own; each caught a real line before the table took it. */
const BARE_STATUS_NUMBER: readonly RegExp[] = [
  // `record.statusCode === 6`, `code === 10`, `row.code !== 5`
  new RegExp(String.raw`\b(?:statusCode|toCode|fromCode|code)\s*(?:===|!==|==|!=|<=|>=|<|>)\s*${CODE}`),
  // `5 === code`
  new RegExp(String.raw`(?<![\w.])${CODE}\s*(?:===|!==|==|!=)\s*[\w.]*[cC]ode\b`),
  // a list of codes: `[4, 5]`, `[1, 2, 3, 4, 15].includes(...)`
  new RegExp(String.raw`\[\s*${CODE}(?:\s*,\s*${CODE})+\s*\]`),
  // a table keyed by code: `  4: 'Authorized',`
  new RegExp(String.raw`^\s*${CODE}\s*:\s`),
  new RegExp(String.raw`\bcase\s+${CODE}\s*:`),
  // SQL on the status columns: `to_code IN (4, 5)`, `status_code = 5`
  new RegExp(String.raw`\b(?:status_code|to_code|from_code)\s*(?:=|<>|IN|in)\s*\(?\s*${CODE}`),
];

/**
 * Where a status number may stand: the table itself; the sandbox, which stays independent of the module and keeps
 * its own picture of the service; specs, which state codes as the spec gives them. The Vendure dashboard's words
 * are translations keyed by the wire's code, deciding nothing.
 */
function scanned(path: string): boolean {
  const rel = relative(ROOT, path).split('\\').join('/');
  if (!rel.endsWith('.ts') || rel.endsWith('.spec.ts')) return false;
  if (rel.startsWith('src/sandbox/')) return false;
  return rel !== 'src/domain/status-table.ts' && rel !== 'src/vendure/dashboard/invoice-words.ts';
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function bareStatusNumbers(text: string): number[] {
  const lines = text.split('\n');
  return lines.flatMap((line, i) => (BARE_STATUS_NUMBER.some((re) => re.test(line)) ? [i + 1] : []));
}

describe('status numbers', () => {
  it('stand in the status table only: module code asks the table or names a code', () => {
    const found = filesUnder(SRC)
      .filter(scanned)
      .flatMap((path) =>
        bareStatusNumbers(readFileSync(path, 'utf8')).map((n) => `${relative(ROOT, path)}:${n}`),
      );
    expect(found).toEqual([]);
  });

  it('catches each way a status number was written before the table, and nothing else', () => {
    const caught = [
      'return this.cancelUnless(input, (record) => record.statusCode === 6);',
      'if (action === "captured" && row.code !== 5) action = "not_supported";',
      'if (code === 8 || code === 9) await this.matchRefunds(ctx, change);',
      'if (5 === record.statusCode) return;',
      'const ACTED_CODES = [4, 5];',
      'export const CANCELLABLE_CODES: readonly number[] = [1, 2, 3, 4, 15];',
      '  16: "Declined",',
      '    case 12:',
      ".andWhere('h.to_code IN (4, 5)')",
    ];
    const passed = [
      'const refusal = result.status === 401 ? "forged" : "refused";',
      'out.country = code.length === 2 ? alpha2ToAlpha3(code) : code;',
      'if (record.statusCode === InvoiceStatusCode.Canceled) return;',
      'res.status(400).json({ statusCode: 400, error: "Bad Request" });',
      'expect([1000, 1500, 2000]).toHaveLength(3);',
      '    case 404:',
    ];
    expect(caught.filter((line) => bareStatusNumbers(line).length === 0)).toEqual([]);
    expect(passed.filter((line) => bareStatusNumbers(line).length > 0)).toEqual([]);
  });
});
