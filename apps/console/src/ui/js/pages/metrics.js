// Metrics: the registry's routing figures (seed article 6.3) and per-instance outcome windows.
import { getJson } from '../api.js';
import { badge, errorBox, h, replace, table } from '../dom.js';
import { formatMs, formatPct } from '../format.js';

const tile = (label, value, note) =>
  h(
    'div',
    { class: 'tile' },
    h('div', { class: 'tile-value' }, value),
    h('div', { class: 'tile-label' }, label),
    note ? h('div', { class: 'tile-note' }, note) : null,
  );

const INSTANCE_COLUMNS = [
  { header: 'Instance', cell: (i) => h('code', {}, i.instance_id) },
  { header: 'Agent', cell: (i) => i.agent_name },
  { header: 'State', cell: (i) => badge(i.state === 'healthy' ? 'ok' : 'unavailable', i.state) },
  { header: 'Window', cell: (i) => String(i.window), class: 'num' },
  { header: 'Failures', cell: (i) => String(i.failures), class: 'num' },
  // With no call in its window the rate is only the prior: say so instead of showing it.
  {
    header: 'Success rate',
    cell: (i) => (i.window > 0 ? formatPct(i.success_rate) : 'no calls yet'),
    class: 'num',
  },
  { header: 'p50', cell: (i) => formatMs(i.latency_ms?.p50), class: 'num' },
  { header: 'p95', cell: (i) => formatMs(i.latency_ms?.p95), class: 'num' },
];

function view(stats) {
  // With no calls reported yet a rate means nothing.
  const rate = (share) => (stats.calls.total > 0 ? formatPct(share) : '–');
  const retries = Object.entries(stats.calls.retries);
  return [
    h(
      'div',
      { class: 'tiles' },
      tile('route hit rate', rate(stats.calls.hit_rate), 'calls the first candidate served'),
      tile('fallback rate', rate(stats.calls.fallback_rate), 'calls that needed a fallback'),
      tile('calls', String(stats.calls.total), `${stats.calls.failed} failed`),
      tile(
        'route queries',
        String(stats.routes.total),
        `cache hit rate ${stats.routes.total > 0 ? formatPct(stats.routes.cache_hit_rate) : '–'}`,
      ),
    ),
    h('h3', {}, 'Retries per call'),
    table(
      retries.map(([k]) => ({
        header: k === '1' ? '1 retry' : `${k} retries`,
        cell: () => String(stats.calls.retries[k]),
        class: 'num',
      })),
      [stats],
    ),
    h('h3', {}, 'Instances'),
    table(INSTANCE_COLUMNS, stats.instances, 'No instance has outcomes yet.'),
  ];
}

/** Mounts the Metrics page; refreshes every 5 s. */
export function mount(root) {
  const body = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  let live = true;
  const load = () =>
    getJson('/registry/v1/routing/stats').then(
      (stats) => live && replace(body, view(stats)),
      (error) => live && replace(body, errorBox(error)),
    );
  replace(root, h('section', { class: 'card' }, h('h2', {}, 'Routing metrics'), body));
  void load();
  const timer = setInterval(load, 5000);
  return () => {
    live = false;
    clearInterval(timer);
  };
}
