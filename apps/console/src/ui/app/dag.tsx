// The run's DAG as SVG: dagre's layout, one box per node and one arrow per dependency, both
// coloured by the live state (an edge is done once its source succeeded, active while its target runs).
import type { NodeStatus } from '@agent-reach/sdk/protocol';
import { useMemo } from 'preact/hooks';
import { formatMs, shorten } from '../../shared/format.js';
import { layoutDag } from './dag-layout.js';
import type { RunNode, RunState } from './run-state.js';

function nodeDuration(node: RunNode, now: number): string {
  if (node.durationMs !== null) return formatMs(node.durationMs);
  if (node.state === 'running' && node.startedAt !== null) return `${formatMs(now - node.startedAt)}…`;
  return '–';
}

/** How an edge is drawn, from the states of its ends. */
export function edgeState(from: NodeStatus, to: NodeStatus): 'done' | 'active' | 'blocked' | 'waiting' {
  if (to === 'running') return 'active';
  if (from === 'succeeded') return 'done';
  if (from === 'failed' || from === 'unavailable' || from === 'skipped' || from === 'interrupted')
    return 'blocked';
  return 'waiting';
}

const path = (points: Array<{ x: number; y: number }>) =>
  points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ');

/** The DAG of a run; `now` drives running nodes' live durations. */
export function Dag({ state, now = Date.now() }: { state: RunState; now?: number }) {
  // The layout depends only on the nodes and edges, not on their states.
  const shape = state.order.map((id) => `${id}<${state.nodes[id]?.dependsOn.join(',')}`).join(';');
  const geometry = useMemo(() => layoutDag(state), [shape]);
  if (state.order.length === 0) return <p class="empty">Waiting for the plan…</p>;
  const states = state.order.map((id) => state.nodes[id]!.state);
  const done = states.filter((s) => s === 'succeeded').length;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
    <section class="dag-scroll" tabIndex={0} aria-label="DAG (scrolls sideways)">
      <svg
        class="dag"
        width={geometry.width}
        height={geometry.height}
        viewBox={`0 0 ${geometry.width} ${geometry.height}`}
        role="img"
        aria-label={`DAG of ${state.order.length} nodes, ${done} succeeded`}
      >
        <defs>
          {['done', 'active', 'blocked', 'waiting'].map((kind) => (
            <marker
              key={kind}
              id={`arrow-${kind}`}
              class={`arrow arrow-${kind}`}
              viewBox="0 0 10 10"
              refX="9"
              refY="5"
              markerWidth="7"
              markerHeight="7"
              orient="auto-start-reverse"
            >
              <path d="M0,0 L10,5 L0,10 z" />
            </marker>
          ))}
        </defs>
        <g class="edges">
          {geometry.edges.map((e) => {
            const kind = edgeState(state.nodes[e.from]!.state, state.nodes[e.to]!.state);
            return (
              <path
                key={`${e.from}->${e.to}`}
                class={`edge edge-${kind}`}
                data-from={e.from}
                data-to={e.to}
                data-state={kind}
                d={path(e.points)}
                marker-end={`url(#arrow-${kind})`}
              />
            );
          })}
        </g>
        <g class="nodes">
          {geometry.nodes.map((p) => {
            const n = state.nodes[p.id]!;
            const x = p.x - p.width / 2;
            const y = p.y - p.height / 2;
            return (
              <g
                key={p.id}
                class={`node node-${n.state}${state.currentLayer !== null && n.layer === state.currentLayer ? ' node-layer-active' : ''}`}
                data-node={n.id}
                data-state={n.state}
                data-layer={n.layer ?? ''}
                transform={`translate(${x.toFixed(1)},${y.toFixed(1)})`}
              >
                <title>
                  {`${n.id} · ${n.capability} · ${n.state}${n.purpose ? `\n${n.purpose}` : ''}${n.error ? `\n${n.error}` : ''}`}
                </title>
                <rect class="node-box" width={p.width} height={p.height} rx="8" />
                <rect class="node-band" width="6" height={p.height} rx="3" />
                <text class="node-capability" x="16" y="22">
                  {shorten(n.capability, 22)}
                </text>
                <text class="node-id" x="16" y="40">
                  {n.id}
                </text>
                <text class="node-state" x={p.width - 10} y="40" text-anchor="end">
                  {n.state}
                </text>
                <text class="node-agent" x="16" y="58">
                  {shorten(n.agent ?? 'unbound', 24)}
                </text>
                <text class="node-meta" x="16" y="75">
                  <tspan class="node-attempts">{String(n.attempts)}</tspan>
                  <tspan> attempt{n.attempts === 1 ? '' : 's'} · </tspan>
                  <tspan class="node-duration">{nodeDuration(n, now)}</tspan>
                </text>
              </g>
            );
          })}
        </g>
      </svg>
    </section>
  );
}
