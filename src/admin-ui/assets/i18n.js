// Texts of the page in Brazilian Portuguese (default) and English. Messages from the API (field errors, gateway
// errors) are shown as the API wrote them.
import { EN } from './messages-en.js';
import { PT_BR } from './messages-pt.js';

const CATALOGS = { 'pt-BR': PT_BR, en: EN };
const LANG_STORAGE = 'invoice-payments-admin-lang';
let lang = CATALOGS[localStorage.getItem(LANG_STORAGE)] ? localStorage.getItem(LANG_STORAGE) : 'pt-BR';

export function currentLang() {
  return lang;
}

export function setLang(next) {
  lang = CATALOGS[next] ? next : 'pt-BR';
  localStorage.setItem(LANG_STORAGE, lang);
  document.documentElement.lang = lang;
}

/** Adds texts the API gives (the settings' labels and help) to a language's catalog. */
export function addTexts(language, entries) {
  Object.assign(CATALOGS[language], entries);
}

/** The text of `key` in the current language, `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = CATALOGS[lang][key] ?? EN[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (name in vars ? String(vars[name]) : all));
}

/** Fills every `[data-i18n]` element of the static page with its text. */
export function translateStatic(root = document) {
  for (const node of root.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  document.title = t('title');
  document.getElementById('tabs')?.setAttribute('aria-label', t('sections'));
}
