// One trace: plan, nodes with their input context and output, the deliverable, every event; delete.
import { deleteJson, getJson, seg } from '../api.js';
import { renderDag } from '../dag-view.js';
import { badge, errorBox, fields, h, replace, routeLink } from '../dom.js';
import { eventLog } from '../event-log.js';
import { formatLevels } from '../event-summary.js';
import { formatMs } from '../format.js';
import { stateFromDetail } from '../run-state.js';
import { jaegerLink } from '../trace-links.js';

function nodeDetail(node) {
  return h(
    'details',
    { class: `node-detail node-${node.state}`, 'data-node': node.id },
    h(
      'summary',
      {},
      h('strong', {}, node.id),
      ` · ${node.capability} · `,
      badge(node.state),
      ` · ${node.agent ?? 'unbound'}`,
    ),
    fields([
      ['purpose', node.purpose || '–'],
      ['depends on', node.dependsOn.join(', ') || '–'],
      ['attempts', String(node.attempts)],
      ['duration', formatMs(node.durationMs)],
      node.error ? ['error', node.error] : null,
    ]),
    h('h4', {}, 'Input context'),
    h(
      'pre',
      { class: 'node-context' },
      node.context === null ? '(none recorded)' : node.context || '(empty: no upstream output)',
    ),
    h('h4', {}, 'Output'),
    h('pre', { class: 'node-output' }, node.output ?? '(none)'),
  );
}

function view(detail, ctx, onDelete) {
  const state = stateFromDetail(detail);
  const t = detail.trace;
  const plan = detail.plan;
  return [
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Trace ', badge(t.status)),
      fields([
        ['trace id', h('code', { class: 'trace-id' }, t.id)],
        ['task', t.task],
        ['started', new Date(t.started_at).toLocaleString()],
        ['duration', formatMs(t.duration_ms)],
        t.error ? ['error', t.error] : null,
      ]),
      h(
        'div',
        { class: 'actions' },
        jaegerLink(ctx.settings, t.id),
        t.status === 'running' ? routeLink('Watch live', 'run', t.id) : null,
        h('button', { type: 'button', class: 'danger', onclick: onDelete }, 'Delete trace'),
      ),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Plan'),
      plan
        ? fields([
            ['layers', formatLevels(plan.levels)],
            ['planner', plan.provider ?? 'offline'],
            ['fallback plan', plan.degraded ? 'yes' : 'no'],
            [
              'warnings',
              plan.warnings.length
                ? h(
                    'ul',
                    {},
                    plan.warnings.map((w) => h('li', {}, w)),
                  )
                : 'none',
            ],
          ])
        : h('p', { class: 'empty' }, 'No plan was stored.'),
      renderDag(state),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Nodes'),
      state.order.map((id) => nodeDetail(state.nodes[id])),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, 'Deliverable'),
      t.summary
        ? h('pre', { class: 'deliverable-text' }, t.summary)
        : h('p', { class: 'empty' }, 'No deliverable.'),
    ),
    h(
      'section',
      { class: 'card' },
      h('h2', {}, `Events (${detail.events.length})`),
      eventLog(detail.events, true),
    ),
  ];
}

/** Mounts the trace page for `params[0]`. */
export function mount(root, params, ctx) {
  const id = params[0];
  let live = true;
  replace(root, h('p', { class: 'empty' }, 'Loading…'));
  const onDelete = async () => {
    if (!confirm(`Delete trace ${id}? This cannot be undone.`)) return;
    try {
      await deleteJson(`/api/traces/${seg(id)}`);
      location.hash = '#/traces';
    } catch (error) {
      root.prepend(errorBox(error));
    }
  };
  getJson(`/api/traces/${seg(id)}`).then(
    (detail) => live && replace(root, view(detail, ctx, onDelete)),
    (error) => live && replace(root, errorBox(error), h('p', {}, routeLink('Back to traces', 'traces'))),
  );
  return () => {
    live = false;
  };
}
