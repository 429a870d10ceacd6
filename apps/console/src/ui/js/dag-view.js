// The DAG drawn layer by layer: one column per layer, one box per node.
import { badge, h } from './dom.js';
import { formatMs } from './format.js';
import { nodesByLayer } from './run-state.js';

function nodeDuration(node, now) {
  if (node.durationMs !== null) return formatMs(node.durationMs);
  if (node.state === 'running' && node.startedAt !== null) return `${formatMs(now - node.startedAt)}…`;
  return '–';
}

function nodeBox(node, now) {
  return h(
    'article',
    { class: `node node-${node.state}`, 'data-node': node.id, 'data-state': node.state },
    h('header', {}, h('span', { class: 'node-capability' }, node.capability), badge(node.state)),
    h('div', { class: 'node-id' }, node.id),
    h(
      'dl',
      { class: 'node-facts' },
      h('dt', {}, 'agent'),
      h('dd', { class: 'node-agent' }, node.agent ?? 'unbound'),
      h('dt', {}, 'attempts'),
      h('dd', { class: 'node-attempts' }, String(node.attempts)),
      h('dt', {}, 'duration'),
      h('dd', { class: 'node-duration' }, nodeDuration(node, now)),
      node.dependsOn.length > 0 ? [h('dt', {}, 'after'), h('dd', {}, node.dependsOn.join(', '))] : null,
    ),
    node.error && node.state !== 'ok' ? h('p', { class: 'node-error' }, node.error) : null,
  );
}

/** The run's DAG as columns of node boxes, the running layer marked. */
export function renderDag(state, now = Date.now()) {
  const layers = nodesByLayer(state);
  if (layers.length === 0) return h('p', { class: 'empty' }, 'Waiting for the plan…');
  return h(
    'div',
    { class: 'dag' },
    layers.map((nodes, i) =>
      h(
        'section',
        { class: `layer${state.currentLayer === i ? ' layer-active' : ''}`, 'data-layer': String(i) },
        h('h3', {}, i < state.levels.length ? `Layer ${i + 1}` : 'Unplaced'),
        nodes.map((n) => nodeBox(n, now)),
      ),
    ),
  );
}
