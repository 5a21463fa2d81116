/**
 * The component's look. Every color, the font and the radius are CSS custom properties a store sets on the element
 * (`invoice-payment { --ip-accent: #6a1b9a }`); every block has a `part` for `::part()`. The defaults meet WCAG AA
 * contrast on white, and the layout works from 320 px wide.
 */
const STYLES = `
:host{display:block;box-sizing:border-box;max-width:var(--ip-max-width,30rem);font:var(--ip-font,1rem/1.5 system-ui,sans-serif);color:var(--ip-text,#1a1a1a);background:var(--ip-bg,#fff)}
:host([hidden]){display:none}
*,*::before,*::after{box-sizing:inherit}
[part~=container]{border:1px solid var(--ip-border,#c4c4c4);border-radius:var(--ip-radius,.5rem);padding:1rem;display:grid;gap:.75rem}
h2{font-size:1.15rem;margin:0}
form{display:grid;gap:.75rem}
p{margin:0}
[part~=status][data-state=paid]{color:var(--ip-success,#1b6b2f)}
[part~=status][data-state=failed],[part~=status][data-state=canceled],[part~=status][data-state=expired]{color:var(--ip-danger,#a3001b)}
.muted,[part~=countdown],[part~=note]{color:var(--ip-muted,#555)}
[part~=amount]{font-size:1.25rem;font-weight:600}
[part~=qr]{display:block;width:min(240px,100%);height:auto;margin:0 auto;image-rendering:pixelated}
[part~=code],[part~=line]{width:100%;font:.9rem/1.4 ui-monospace,monospace;word-break:break-all;resize:none;padding:.5rem;border:1px solid var(--ip-border,#767676);border-radius:var(--ip-radius,.5rem);color:inherit;background:var(--ip-field-bg,#f7f7f7)}
[part~=barcode]{display:block;width:100%;height:3.5rem;fill:#000;background:#fff}
button,[part~=slip-link],[part~=order-link]{display:inline-flex;align-items:center;justify-content:center;min-height:44px;padding:.5rem 1rem;border-radius:var(--ip-radius,.5rem);font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button{border:0;background:var(--ip-accent,#0b57a4);color:var(--ip-accent-text,#fff)}
button[disabled]{opacity:.7;cursor:progress}
button.secondary,[part~=slip-link],[part~=order-link]{background:transparent;color:var(--ip-accent,#0b57a4);border:2px solid currentColor}
:focus-visible{outline:3px solid var(--ip-focus,#0b57a4);outline-offset:2px}
label{display:block;font-weight:600;margin-bottom:.25rem}
input,select{width:100%;min-height:44px;padding:.5rem;font:inherit;color:inherit;background:var(--ip-bg,#fff);border:1px solid var(--ip-border-strong,#767676);border-radius:var(--ip-radius,.5rem)}
input[aria-invalid=true]{border-color:var(--ip-danger,#a3001b);border-width:2px}
.row{display:grid;grid-template-columns:repeat(auto-fit,minmax(7.5rem,1fr));gap:.75rem;align-items:start}
[part~=field-error],[part~=error]{color:var(--ip-danger,#a3001b);font-size:.9rem}
[part~=error]:empty,[part~=field-error]:empty{display:none}
.sr{position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

let shared: CSSStyleSheet | null = null;

/**
 * Puts the styles in the shadow root: one constructed style sheet shared by every instance where the browser has
 * them (a page whose Content-Security-Policy has no `'unsafe-inline'` styles allows it), a `<style>` elsewhere.
 */
export function applyStyles(root: ShadowRoot): void {
  if (
    'adoptedStyleSheets' in root &&
    typeof CSSStyleSheet !== 'undefined' &&
    'replaceSync' in CSSStyleSheet.prototype
  ) {
    if (!shared) {
      shared = new CSSStyleSheet();
      shared.replaceSync(STYLES);
    }
    root.adoptedStyleSheets = [shared];
    return;
  }
  const style = document.createElement('style');
  style.textContent = STYLES;
  root.appendChild(style);
}
