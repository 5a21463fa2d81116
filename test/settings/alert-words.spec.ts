import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALERT_KINDS } from '../../src/core/events';

// Every owner screen names every alert kind in English and Brazilian Portuguese, so none shows a raw code word. The
// screens' catalogs are read as text: the admin page's are browser modules, Medusa's and Vendure's need their hosts'
// React packages to load.

const root = join(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** `key: 'words'` (or `t\`words\``) entries of one block of source text. */
function entries(text: string, pattern: RegExp): Map<string, string> {
  return new Map([...text.matchAll(pattern)].map((m) => [m[1], m[2]]));
}

/** The admin page's `alert_<kind>` words of one language. */
function adminPage(file: string): Map<string, string> {
  return entries(read(`src/admin-ui/assets/${file}`), /^ {2}alert_([a-z_]+): ['"](.+)['"],$/gm);
}

/** The `alert: { … }` blocks of Medusa's i18n.ts, English's then Portuguese's. */
function medusa(): Array<Map<string, string>> {
  const text = read('medusa-plugin/admin/i18n.ts');
  const blocks = [...text.matchAll(/^ {2}alert: \{\n([\s\S]*?)\n {2}\},$/gm)].map((m) => m[1]);
  return blocks.map((block) => entries(block, /^ {4}([a-z_]+): ['"](.+)['"],$/gm));
}

/** A .po catalog's msgid → msgstr. */
function po(file: string): Map<string, string> {
  return entries(read(`src/vendure/dashboard/i18n/${file}`), /^msgid "(.+)"\nmsgstr "(.*)"$/gm);
}

/** Which kind the Vendure block names with which msgid (its `alerts` record of Lingui `t` macros). */
function vendureMsgids(): Map<string, string> {
  const text = read('src/vendure/dashboard/invoice-words.ts');
  const block = /const alerts: Record<string, string> = \{\n([\s\S]*?)\n {2}\};/.exec(text)?.[1] ?? '';
  return entries(block, /^ {4}([a-z_]+): t`([^`]+)`,$/gm);
}

const missing = (words: Map<string, string>) => ALERT_KINDS.filter((k) => !words.get(k)?.trim());

describe('every alert kind has a name on every owner screen, in English and Portuguese', () => {
  it('lists the kinds of InvoicePaymentsAlert', () => {
    expect(ALERT_KINDS).toHaveLength(new Set(ALERT_KINDS).size);
    expect(ALERT_KINDS.length).toBeGreaterThanOrEqual(11);
  });

  it("the module's admin page (messages-en.js, messages-pt.js)", () => {
    expect(missing(adminPage('messages-en.js'))).toEqual([]);
    expect(missing(adminPage('messages-pt.js'))).toEqual([]);
  });

  it("Medusa's order widget (i18n.ts, en and ptBR)", () => {
    const [en, pt] = medusa();
    expect(missing(en ?? new Map())).toEqual([]);
    expect(missing(pt ?? new Map())).toEqual([]);
    expect(read('medusa-plugin/admin/i18n.ts')).toContain('ptBR: { translation: { invoicePayments: pt } }');
    expect(read('medusa-plugin/admin/order-invoice.widget.tsx')).toContain('t(`alert.${a.kind}`');
  });

  it("Vendure's order block (its Lingui msgids, en.po and pt_BR.po)", () => {
    const msgids = vendureMsgids();
    expect(missing(msgids)).toEqual([]);
    for (const catalog of [po('en.po'), po('pt_BR.po')]) {
      const untranslated = ALERT_KINDS.filter((k) => !catalog.get(msgids.get(k) ?? '')?.trim());
      expect(untranslated).toEqual([]);
    }
    expect(read('src/vendure/dashboard/invoice-payments-block.tsx')).toContain('words.alert(a.kind)');
  });
});
