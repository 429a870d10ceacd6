// Discovery: what the orchestrator's capability index sees through DNS, per capability.
import { getJson } from '../api.js';
import { descriptionCell, originCell, providersCell } from '../capability-cells.js';
import { badge, errorBox, fields, h, replace, table } from '../dom.js';
import { formatMs } from '../format.js';

const candidateList = (candidates) =>
  candidates.length === 0
    ? '–'
    : h(
        'ul',
        { class: 'compact' },
        candidates.map((c) =>
          h(
            'li',
            {},
            h('strong', {}, c.agent_name),
            ` ${c.endpoint} · prio ${c.priority} · weight ${c.weight} · `,
            badge(c.health === 'healthy' ? 'ok' : 'pending', c.health),
          ),
        ),
      );

const failedList = (failed) =>
  failed.length === 0
    ? '–'
    : h(
        'ul',
        { class: 'compact' },
        failed.map((f) => h('li', {}, `${f.instance} (${f.stage}): ${f.reason} — ${f.message}`)),
      );

const COLUMNS = [
  { header: 'Capability', cell: (c) => h('strong', {}, c.capability) },
  { header: 'Origin', cell: originCell },
  { header: 'Description', cell: descriptionCell, class: 'wide' },
  { header: 'Providers', cell: providersCell },
  { header: 'Source', cell: (c) => c.source },
  { header: 'Available', cell: (c) => badge(c.available ? 'ok' : 'unavailable', c.available ? 'yes' : 'no') },
  { header: 'Reason', cell: (c) => c.reason ?? '–' },
  { header: 'Candidates', cell: (c) => candidateList(c.candidates), class: 'wide' },
  { header: 'Failed', cell: (c) => failedList(c.failed) },
];

const statsTable = (stats, totals) =>
  table(
    [
      { header: 'Counter', cell: (k) => k },
      { header: 'This pass', cell: (k) => String(stats[k] ?? 0), class: 'num' },
      { header: 'Since start', cell: (k) => String(totals[k] ?? 0), class: 'num' },
    ],
    Object.keys(stats),
  );

/** Mounts the Discovery page. */
export function mount(root) {
  const body = h('div', {}, h('p', { class: 'empty' }, 'Asking DNS…'));
  let live = true;
  const load = async () => {
    try {
      const view = await getJson('/api/discovery');
      if (!live) return;
      replace(
        body,
        fields([
          ['zone', view.zone],
          ['DNS server', view.dns_server],
          ['discovered', new Date(view.discovered_at).toLocaleString()],
          ['took', formatMs(view.duration_ms)],
          ['selection', view.strategy],
        ]),
        table(COLUMNS, Object.values(view.capabilities), 'No capabilities.'),
        h('h3', {}, 'Counters'),
        statsTable(view.stats, view.totals),
      );
    } catch (error) {
      if (live) replace(body, errorBox(error));
    }
  };
  replace(
    root,
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Discovery'),
      h('div', { class: 'actions' }, h('button', { type: 'button', onclick: load }, 'Discover again')),
      body,
    ),
  );
  void load();
  return () => {
    live = false;
  };
}
