/** A plan node as the trace store returns it. */
export interface DagNode {
  node_id: string;
  depends_on: string[];
}

/** The longest dependency chain, each node weighing `weight(node_id)` (e.g. its agent-side milliseconds). */
export function criticalPath(nodes: readonly DagNode[], weight: (nodeId: string) => number): number {
  const byId = new Map(nodes.map((n) => [n.node_id, n]));
  const memo = new Map<string, number>();
  const finish = (id: string, depth: number): number => {
    if (depth > nodes.length) throw new Error('the plan has a cycle');
    const known = memo.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    if (!node) throw new Error(`unknown node ${id}`);
    const start = Math.max(0, ...node.depends_on.map((d) => finish(d, depth + 1)));
    const value = start + weight(id);
    memo.set(id, value);
    return value;
  };
  return Math.max(0, ...nodes.map((n) => finish(n.node_id, 0)));
}

/** The plan's layers: nodes whose dependencies are all in earlier layers. */
export function layersOf(nodes: readonly DagNode[]): string[][] {
  const done = new Set<string>();
  const layers: string[][] = [];
  while (done.size < nodes.length) {
    const layer = nodes.filter((n) => !done.has(n.node_id) && n.depends_on.every((d) => done.has(d)));
    if (layer.length === 0) throw new Error('the plan has a cycle');
    for (const n of layer) done.add(n.node_id);
    layers.push(layer.map((n) => n.node_id));
  }
  return layers;
}
