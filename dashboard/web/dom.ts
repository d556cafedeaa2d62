/** A tiny element builder: h('button', { onclick }, 'Save'). Text children are never parsed as HTML. */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

export function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  const id = input.id || `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  input.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('small', {}, hint) : null);
}

export function table(headers: string[], rows: Array<Array<Child>>, empty = 'Nothing yet.'): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  // Wrapped so a wide table scrolls inside its card instead of widening the page (narrow screens).
  return h('div', { class: 'table-wrap' }, h('table', {}, h('thead', {}, h('tr', {}, headers.map((t) => h('th', {}, t)))), h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c) => h('td', {}, c)))))));
}

export function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString() : '—';
}

export function badge(text: string, kind = text): HTMLElement {
  return h('span', { class: `badge badge-${kind}` }, text);
}

/** A button that copies `text()` to the clipboard and says so; falls back to selecting for Ctrl-C. */
export function copyButton(text: () => string, label = 'Copy'): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'secondary small copy' }, label);
  button.addEventListener('click', () => {
    const value = text();
    const done = () => {
      button.textContent = 'Copied';
      window.setTimeout(() => (button.textContent = label), 1500);
    };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(value).then(done, () => fallbackCopy(value, done));
    } else {
      fallbackCopy(value, done);
    }
  });
  return button;
}

function fallbackCopy(value: string, done: () => void): void {
  const area = h('textarea', { 'aria-hidden': 'true' }, value);
  document.body.append(area);
  area.select();
  if (document.execCommand('copy')) done();
  area.remove();
}

/** A block of code with its copy button. */
export function codeBlock(text: string, label = 'Copy'): HTMLElement {
  return h('div', { class: 'code-block' }, h('pre', {}, h('code', {}, text)), copyButton(() => text, label));
}
