// DOM helpers. Everything that comes from the server goes in as text (textContent, setAttribute on safe
// attributes), never as HTML: there is no innerHTML anywhere in this page.

/**
 * Builds an element. `attrs`: `class`, `text`, `on<event>` handlers, booleans (`hidden`, `disabled`...), anything
 * else as an attribute. Children are nodes or strings (added as text).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function')
      node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Empties `node` and puts `children` in it. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat(Infinity)) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

/** An http(s) link to a URL the service gave, or plain text for anything else (no `javascript:` links). */
export function safeLink(url, label) {
  try {
    const parsed = new URL(String(url));
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
      return el('a', { href: parsed.href, target: '_blank', rel: 'noopener noreferrer', text: label ?? url });
    }
  } catch {
    // not a URL: shown as text below
  }
  return document.createTextNode(String(url));
}

const CURRENCY = new Map();

/**
 * Integer cents → "R$\u00a01.234,56" (pt-BR) or "R$1,234.56" (en), by `Intl.NumberFormat` (its space after "R$" is
 * a non-breaking one). The number goes in as an exact decimal string: money is never a float.
 */
export function brl(cents, lang) {
  if (cents === null || cents === undefined) return '—';
  const locale = lang === 'en' ? 'en' : 'pt-BR';
  if (!CURRENCY.has(locale))
    CURRENCY.set(locale, new Intl.NumberFormat(locale, { style: 'currency', currency: 'BRL' }));
  const digits = String(Math.abs(cents)).padStart(3, '0');
  const decimal = `${cents < 0 ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  return CURRENCY.get(locale).format(decimal);
}

/** "12,34", "12.34", "1.234,56" or "12" → 1234 cents; `null` when it is not an amount with at most 2 decimals. */
export function parseCents(text) {
  const value = String(text)
    .trim()
    .replace(/^R\$\s*/, '');
  const match = /^(\d{1,3}(?:[.,\s]\d{3})*|\d+)(?:[.,](\d{1,2}))?$/.exec(value);
  if (!match) return null;
  const units = match[1].replace(/[.,\s]/g, '');
  const decimals = (match[2] ?? '').padEnd(2, '0');
  const cents = Number(units + decimals);
  return Number.isSafeInteger(cents) ? cents : null;
}

/** An ISO instant in the browser's time zone. */
export function when(iso, lang) {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toLocaleString(lang, { dateStyle: 'short', timeStyle: 'medium' });
}

/** `YYYY-MM-DD` → a local day in the page's language (the date as such, no time zone shift). */
export function day(ymd, lang) {
  if (!ymd || !/^\d{4}-\d{2}-\d{2}$/.test(ymd)) return ymd ?? '—';
  const [y, m, d] = ymd.split('-').map(Number);
  return new Date(y, m - 1, d).toLocaleDateString(lang);
}

/**
 * A table with a header row; `rows` are arrays of cells (nodes or text); `empty` shown when there is none. Each
 * cell carries its column's name (`data-label`): on a phone the rows become cards that show it beside the value.
 * Amount columns (`num`) never break ("R$" stays with its number).
 */
export function table(caption, headers, rows, empty) {
  if (rows.length === 0) return el('p', { class: 'empty', text: empty });
  const label = (h) => (typeof h === 'string' ? h : (h?.label ?? ''));
  return el(
    'table',
    { class: 'cards' },
    el('caption', { class: 'visually-hidden', text: caption }),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', { scope: 'col', class: h.num ? 'num' : null, text: h.label ?? h })),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map((cells) =>
        el(
          'tr',
          {},
          cells.map((c, i) =>
            el(
              'td',
              { class: headers[i]?.num ? 'num' : null, 'data-label': label(headers[i]) || null },
              c ?? '—',
            ),
          ),
        ),
      ),
    ),
  );
}
