// What the settings form changes, as the body of `PUT /settings`.
import { FIELDS } from './settings-fields.js';

function integerOrRaw(text) {
  const trimmed = text.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sameJson(a, b) {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * What the form changes, as the body of `PUT /settings`: only fields that differ from `settings` (a secret only
 * when typed), `null` for "use the default" and "clear". Values go as typed: the API validates and names the field.
 */
export function readChanges(form, settings) {
  const body = {};
  for (const field of FIELDS) {
    const row = form.querySelector(`[data-field="${field.name}"]`);
    if (row.querySelector(`[data-reset="${field.name}"]`)?.checked) {
      body[field.name] = null;
      continue;
    }
    const current = settings[field.name];
    if (field.secret) {
      const typed = row.querySelector('input[type="password"]').value;
      if (typed !== '') body[field.name] = typed;
      else if (row.querySelector(`[data-clear="${field.name}"]`).checked) body[field.name] = null;
      continue;
    }
    let next;
    if (field.type === 'mode') next = row.querySelector('input[name="mode"]:checked')?.value ?? current;
    else if (field.type === 'methods')
      next = [...row.querySelectorAll('input[name="enabledMethods"]:checked')].map((i) => i.value);
    else if (field.type === 'ecommerce') {
      const [storeId, checkout] = ['storeId', 'checkout'].map((k) =>
        row.querySelector(`[data-part="${k}"]`).value.trim(),
      );
      next =
        storeId === '' && checkout === ''
          ? null
          : { storeId: integerOrRaw(storeId), checkout: integerOrRaw(checkout) };
    } else if (field.type === 'json') {
      // Not JSON: sent as typed, and the API names the field.
      const text = row.querySelector('textarea').value.trim();
      next = text === '' ? null : parseJson(text);
    } else {
      const text = row.querySelector('input').value;
      next = text.trim() === '' ? null : field.type === 'int' ? integerOrRaw(text) : text.trim();
    }
    if (!sameJson(next, current)) body[field.name] = next;
  }
  return body;
}
