import type { Messages } from './messages.js';

/** Puts `text` on the clipboard and says so ("Copiado"), or asks the shopper to copy it by hand. */
export async function copyText(text: string, m: Messages, say: (message: string) => void): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    say(m.copied);
  } catch {
    say(m.copyFailed);
  }
}

/** A button that is working (disabled, with a "…ing" label) or ready again. */
export function buttonBusy(button: HTMLButtonElement | null, busy: boolean, label: string): void {
  if (!button) return;
  button.disabled = busy;
  button.textContent = label;
}
