// The DAG's geometry from dagre: node boxes and edge paths, layer by layer from left to right.
import { Graph, layout } from '@dagrejs/dagre';
import type { RunState } from './run-state.js';

/** A laid-out node box (its centre, as dagre gives it). */
export interface PlacedNode {
  id: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A laid-out edge from a dependency to the node that needs it. */
export interface PlacedEdge {
  from: string;
  to: string;
  points: Array<{ x: number; y: number }>;
}

/** The whole picture. */
export interface DagLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 84;

/** Lays out the run's nodes and their `depends_on` edges (edges to unknown nodes are left out). */
export function layoutDag(state: Pick<RunState, 'nodes' | 'order'>): DagLayout {
  const g = new Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 18, ranksep: 56 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of state.order) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const id of state.order)
    for (const dep of state.nodes[id]?.dependsOn ?? []) if (state.nodes[dep]) g.setEdge(dep, id);
  layout(g);
  const nodes: PlacedNode[] = g.nodes().map((id) => {
    const n = g.node(id);
    return { id, x: n.x, y: n.y, width: n.width, height: n.height };
  });
  const edges: PlacedEdge[] = g.edges().map((e) => ({
    from: e.v,
    to: e.w,
    points: (g.edge(e).points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y })),
  }));
  // The picture's box holds every node and every edge bend (dagre may route an edge outside the nodes').
  const xs = [
    ...nodes.flatMap((n) => [n.x - n.width / 2, n.x + n.width / 2]),
    ...edges.flatMap((e) => e.points.map((p) => p.x)),
  ];
  const ys = [
    ...nodes.flatMap((n) => [n.y - n.height / 2, n.y + n.height / 2]),
    ...edges.flatMap((e) => e.points.map((p) => p.y)),
  ];
  if (nodes.length === 0) return { width: 0, height: 0, nodes, edges };
  const margin = 8;
  const dx = margin - Math.min(...xs);
  const dy = margin - Math.min(...ys);
  return {
    width: Math.ceil(Math.max(...xs) + dx + margin),
    height: Math.ceil(Math.max(...ys) + dy + margin),
    nodes: nodes.map((n) => ({ ...n, x: n.x + dx, y: n.y + dy })),
    edges: edges.map((e) => ({ ...e, points: e.points.map((p) => ({ x: p.x + dx, y: p.y + dy })) })),
  };
}
