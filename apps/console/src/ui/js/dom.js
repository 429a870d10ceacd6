// Element building without innerHTML: every piece of data becomes a text node or an attribute value.

/**
 * Creates an element. `attrs`: `class`, any attribute (strings; `true` for a bare attribute; null/false
 * skip it), `onclick`-style keys with functions become listeners. Children: nodes, strings (as text),
 * numbers, arrays; null/false/undefined are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children (as `h` takes them) to `el`. */
export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces every child of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/** A status badge: `<span class="badge badge-<state>">text</span>`. */
export function badge(state, text = state) {
  const safe = String(state).replace(/[^a-z_]/g, '');
  return h('span', { class: `badge badge-${safe}` }, text);
}

/** A table from column definitions `{ header, cell(row) → node|string, class? }`. */
export function table(columns, rows, empty = 'Nothing to show.') {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'table',
    {},
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((c) => h('th', { class: c.class }, c.header)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          {},
          columns.map((c) => h('td', { class: c.class }, c.cell(row))),
        ),
      ),
    ),
  );
}

/** A `<dl>` of label/value pairs. */
export function fields(pairs) {
  return h(
    'dl',
    { class: 'fields' },
    pairs.filter(Boolean).map(([label, value]) => [h('dt', {}, label), h('dd', {}, value)]),
  );
}

/** A link inside the console (hash route); path segments are encoded. */
export function routeLink(text, ...segments) {
  return h('a', { href: `#/${segments.map((s) => encodeURIComponent(s)).join('/')}` }, text);
}

/** An error box for an API failure. */
export function errorBox(error) {
  const code = error?.code ?? 'ERROR';
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('strong', {}, code),
    ': ',
    error?.message ?? String(error),
  );
}
