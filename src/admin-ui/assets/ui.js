// Page-wide feedback: the status line, error texts, the confirmation dialog.
import { ApiError } from './api.js';
import { t } from './i18n.js';

let onUnauthorized = () => undefined;

/** What to do when the API answers 401 (the key was changed or the session ended): back to sign-in. */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

/** Shows `text` on the page's status line (read out by screen readers). */
export function status(text) {
  document.getElementById('status').textContent = text ?? '';
}

/** The text of an error for people: the API's own message, or the page's for network and session problems. */
export function errorText(error) {
  if (error instanceof ApiError) {
    if (error.status === 0) return t('networkError');
    if (error.status === 401) return t('sessionExpired');
    return `${error.status}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Shows an error in `target` (an element) or on the status line; a 401 signs out. */
export function showError(error, target) {
  if (error instanceof ApiError && error.status === 401) {
    onUnauthorized();
    return;
  }
  if (target) target.textContent = errorText(error);
  else status(errorText(error));
}

/**
 * Asks for confirmation in a modal dialog (keyboard: Tab between the buttons, Enter, Escape cancels); resolves
 * `true` when confirmed. Focus returns to where it was.
 */
export function confirmDialog({ title, text, ok }) {
  const dialog = document.getElementById('confirm');
  const previous = document.activeElement;
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = ok ?? t('confirm');
  document.getElementById('confirm-cancel').textContent = t('cancel');
  dialog.returnValue = 'cancel';
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        if (previous instanceof HTMLElement) previous.focus();
        resolve(dialog.returnValue === 'ok');
      },
      { once: true },
    );
    dialog.showModal();
    document.getElementById('confirm-cancel').focus();
  });
}
