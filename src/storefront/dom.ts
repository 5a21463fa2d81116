/** A tiny element builder: text always goes in as text (never parsed as HTML), so nothing from a view can inject. */

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
export type Child = Node | string | null | undefined | false;

/** `h('button', { part: 'button', onclick: fn }, 'Copiar')`. `on*` attributes are listeners; false/null are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child) parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** On a server (Next.js rendering the page) there is no HTMLElement: the class is defined but never registered. */
export const Base = (typeof HTMLElement === 'undefined' ? class {} : HTMLElement) as typeof HTMLElement;
