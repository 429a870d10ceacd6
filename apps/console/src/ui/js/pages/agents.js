// Agents: live instances from the registry, and one agent's declaration history.
import { getJson, seg } from '../api.js';
import { descriptionCell, originCell, providersCell } from '../capability-cells.js';
import { badge, errorBox, fields, h, replace, routeLink, table } from '../dom.js';
import { formatAgo } from '../format.js';

const STATE_BADGE = { healthy: 'ok', suspect: 'running', unavailable: 'failed', deregistered: 'unavailable' };

const COLUMNS = [
  { header: 'Instance', cell: (i) => h('code', {}, i.instance_id) },
  { header: 'Agent', cell: (i) => routeLink(i.agent_name, 'agents', i.agent_name) },
  { header: 'Capabilities', cell: (i) => i.capabilities.join(', '), class: 'wide' },
  { header: 'State', cell: (i) => badge(STATE_BADGE[i.state] ?? 'pending', i.state) },
  {
    header: 'Load',
    cell: (i) => `${i.load.in_flight}/${i.load.capacity}${i.load.queue ? ` +${i.load.queue} queued` : ''}`,
    class: 'num',
  },
  {
    header: 'Last heartbeat',
    cell: (i) => h('span', { title: i.last_heartbeat_at ?? '' }, formatAgo(i.last_heartbeat_at)),
  },
  { header: 'Endpoint', cell: (i) => `${i.endpoint.host}:${i.endpoint.port}` },
  { header: 'Version', cell: (i) => i.declaration_version },
];

function operations(declaration) {
  return table(
    [
      { header: 'Operation', cell: ([name]) => h('strong', {}, name) },
      { header: 'Description', cell: ([, op]) => op.description ?? '–', class: 'wide' },
      { header: 'Tags', cell: ([, op]) => (op.tags ?? []).join(', ') || '–' },
      { header: 'Serves', cell: ([, op]) => (op.serves ?? []).join(', ') || '–' },
      { header: 'Max input', cell: ([, op]) => String(op.constraints?.max_tokens ?? '–'), class: 'num' },
      {
        header: 'Answer time',
        cell: ([, op]) => (op.constraints?.response_time_sec ? `${op.constraints.response_time_sec}s` : '–'),
      },
      { header: 'Formats', cell: ([, op]) => (op.constraints?.output_formats ?? []).join(', ') || '–' },
    ],
    Object.entries(declaration.capabilities ?? {}),
  );
}

function history(name, entries) {
  return h(
    'section',
    { class: 'card', id: 'declarations' },
    h('h2', {}, `Declaration history · ${name}`),
    entries.length === 0
      ? h('p', { class: 'empty' }, 'No declarations recorded.')
      : entries
          .slice()
          .reverse()
          .map((e, i) =>
            h(
              'details',
              { class: 'declaration', open: i === 0 },
              h(
                'summary',
                {},
                h('strong', {}, `version ${e.version}`),
                ` · ${new Date(e.recorded_at).toLocaleString()} · ${e.change_reason ?? 'no change reason'}`,
              ),
              fields([
                ['domain', e.declaration.domain],
                ['priority', String(e.declaration.priority)],
                ['idempotent', e.declaration.idempotent ? 'yes' : 'no'],
                ['substitutable', e.declaration.substitutable ? 'yes' : 'no'],
              ]),
              operations(e.declaration),
            ),
          ),
  );
}

const CAPABILITY_COLUMNS = [
  { header: 'Capability', cell: (c) => h('strong', {}, c.capability) },
  { header: 'Origin', cell: originCell },
  { header: 'Description', cell: descriptionCell, class: 'wide' },
  { header: 'Providers', cell: providersCell },
  { header: 'Source', cell: (c) => c.source },
];

/** Mounts the Agents page; `params[0]` is an agent name whose declaration history to show. */
export function mount(root, params) {
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const caps = h('div', {}, h('p', { class: 'empty' }, 'Asking DNS…'));
  const decl = h('div', {});
  let live = true;
  const load = async () => {
    try {
      const { instances } = await getJson('/registry/v1/agents');
      if (live) replace(list, table(COLUMNS, instances, 'No agent is registered.'));
    } catch (error) {
      if (live) replace(list, errorBox(error));
    }
  };
  replace(
    root,
    h('section', { class: 'card', id: 'agents' }, h('h2', {}, 'Agents'), list),
    h('section', { class: 'card', id: 'capabilities' }, h('h2', {}, 'Capabilities'), caps),
    decl,
  );
  void load();
  // Once per visit: a discovery asks DNS and every card, too much for the 5 s refresh.
  getJson('/api/discovery').then(
    (view) => live && replace(caps, table(CAPABILITY_COLUMNS, Object.values(view.capabilities), 'None.')),
    (error) => live && replace(caps, errorBox(error)),
  );
  const timer = setInterval(load, 5000);
  if (params[0]) {
    getJson(`/registry/v1/declarations/${seg(params[0])}`).then(
      (body) => live && replace(decl, history(body.agent_name, body.history)),
      (error) => live && replace(decl, errorBox(error)),
    );
  }
  return () => {
    live = false;
    clearInterval(timer);
  };
}
