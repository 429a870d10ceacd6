// Traces: the list with a status filter and text search, newest first, paged.
import { getJson } from '../api.js';
import { badge, errorBox, h, replace, table } from '../dom.js';
import { formatAgo, formatMs, shorten } from '../format.js';
import { traceIdLink } from '../trace-links.js';

const STATUSES = ['', 'running', 'ok', 'degraded', 'failed', 'aborted'];

const COLUMNS = [
  { header: 'Started', cell: (t) => h('span', { title: t.started_at }, formatAgo(t.started_at)) },
  { header: 'Status', cell: (t) => badge(t.status) },
  { header: 'Task', cell: (t) => shorten(t.task, 90), class: 'wide' },
  { header: 'Duration', cell: (t) => formatMs(t.duration_ms), class: 'num' },
  { header: 'Trace', cell: (t) => traceIdLink(t.id) },
];

/** Mounts the Traces page. */
export function mount(root) {
  const status = h(
    'select',
    { name: 'status', 'aria-label': 'status' },
    STATUSES.map((s) => h('option', { value: s }, s || 'any status')),
  );
  const q = h('input', {
    name: 'q',
    type: 'search',
    'aria-label': 'search traces by id or text',
    placeholder: 'trace id, task or summary text',
    maxlength: '200',
  });
  const list = h('div', { class: 'trace-list' });
  const more = h('div', { class: 'more' });
  let rows = [];
  let generation = 0;

  const load = async (cursor) => {
    const mine = ++generation;
    const query = new URLSearchParams({ limit: '50' });
    if (status.value) query.set('status', status.value);
    if (q.value.trim()) query.set('q', q.value.trim());
    if (cursor) query.set('cursor', cursor);
    try {
      const page = await getJson(`/api/traces?${query}`);
      if (mine !== generation) return;
      rows = cursor ? rows.concat(page.items) : page.items;
      replace(list, table(COLUMNS, rows, 'No traces match.'));
      replace(
        more,
        page.next_cursor
          ? h('button', { type: 'button', onclick: () => load(page.next_cursor) }, 'Load more')
          : null,
      );
    } catch (error) {
      if (mine === generation) replace(list, errorBox(error));
    }
  };

  const filters = h(
    'form',
    {
      class: 'filters',
      onsubmit: (e) => {
        e.preventDefault();
        void load();
      },
    },
    status,
    q,
    h('button', { type: 'submit' }, 'Refresh'),
  );
  status.addEventListener('change', () => load());
  replace(root, h('section', { class: 'card' }, h('h2', {}, 'Traces'), filters, list, more));
  void load();
  return () => {
    generation += 1;
  };
}
