// Entry point: language, sign-in (admin key kept in sessionStorage, or the host's own guard), and the tabs.
import { api, ApiError, getKey, setKey } from './api.js';
import { currentLang, setLang, t, translateStatic } from './i18n.js';
import { showInvoices } from './invoices.js';
import { showOperations } from './operations.js';
import { showSettings } from './settings.js';
import { setUnauthorizedHandler, status } from './ui.js';

const TABS = {
  settings: showSettings,
  invoices: showInvoices,
  operations: showOperations,
};
let currentTab = 'settings';

const $ = (id) => document.getElementById(id);

function showSignIn(message) {
  setKey(null);
  $('app').hidden = true;
  $('sign-out').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message ?? '';
  $('admin-key').value = '';
  $('admin-key').focus();
}

async function showApp() {
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = getKey() === null;
  await selectTab(currentTab, false);
}

/** Shows tab `name` and loads its content; `focus` moves the keyboard focus to the tab. */
async function selectTab(name, focus = true) {
  currentTab = name;
  for (const tab of Object.keys(TABS)) {
    const selected = tab === name;
    $(`tab-${tab}`).setAttribute('aria-selected', String(selected));
    $(`tab-${tab}`).tabIndex = selected ? 0 : -1;
    $(`panel-${tab}`).hidden = !selected;
  }
  if (focus) $(`tab-${name}`).focus();
  status('');
  await TABS[name]($(`panel-${name}`));
}

/** Tabs follow the ARIA pattern: Tab reaches the selected tab, arrow keys (and Home/End) move between tabs. */
function onTabKey(event) {
  const names = Object.keys(TABS);
  const index = names.indexOf(currentTab);
  const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: names.length - 1 }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  void selectTab(names[(next + names.length) % names.length]);
}

async function signIn(event) {
  event.preventDefault();
  const key = $('admin-key').value.trim();
  if (!key) {
    $('sign-in-error').textContent = t('emptyKey');
    return;
  }
  setKey(key);
  try {
    await api('GET', '/settings');
  } catch (error) {
    showSignIn(error instanceof ApiError && error.status === 401 ? t('badKey') : t('networkError'));
    return;
  }
  $('admin-key').value = '';
  await showApp();
}

/**
 * Signed in when a key is stored, or when the host's own guard lets this browser in (the server says which in the
 * page's `invoice-payments-auth` meta: `key` or `host`).
 */
async function start() {
  const auth = document.querySelector('meta[name="invoice-payments-auth"]')?.content;
  if (auth !== 'host' && getKey() === null) {
    showSignIn();
    return;
  }
  try {
    await api('GET', '/settings');
  } catch {
    showSignIn();
    return;
  }
  await showApp();
}

setLang(currentLang());
translateStatic();
$('lang').value = currentLang();
$('lang').addEventListener('change', async () => {
  setLang($('lang').value);
  translateStatic();
  if (!$('app').hidden) await selectTab(currentTab, false);
});
$('sign-in-form').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', () => showSignIn());
$('tabs').addEventListener('keydown', onTabKey);
for (const name of Object.keys(TABS)) $(`tab-${name}`).addEventListener('click', () => selectTab(name));
setUnauthorizedHandler(() => showSignIn(t('sessionExpired')));
void start();
