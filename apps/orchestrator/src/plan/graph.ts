/** The smallest view of a node the graph helpers need. */
export interface GraphNode {
  id: string;
  depends_on: readonly string[];
}

/** Strongly connected components (Tarjan); a component of two or more nodes, or a self-edge, is a cycle. */
export function stronglyConnected(nodes: readonly GraphNode[]): string[][] {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  // Recursion is fine: plans are capped at a handful of nodes before this runs.
  const visit = (id: string): void => {
    index.set(id, counter);
    low.set(id, counter);
    counter += 1;
    stack.push(id);
    onStack.add(id);
    for (const dep of byId.get(id)?.depends_on ?? []) {
      if (!byId.has(dep)) continue;
      if (!index.has(dep)) {
        visit(dep);
        low.set(id, Math.min(low.get(id)!, low.get(dep)!));
      } else if (onStack.has(dep)) {
        low.set(id, Math.min(low.get(id)!, index.get(dep)!));
      }
    }
    if (low.get(id) === index.get(id)) {
      const component: string[] = [];
      let top: string | undefined;
      do {
        top = stack.pop()!;
        onStack.delete(top);
        component.push(top);
      } while (top !== id);
      components.push(component);
    }
  };
  for (const n of nodes) if (!index.has(n.id)) visit(n.id);
  return components;
}

/** One edge removed to break a cycle. */
export interface CutEdge {
  from: string;
  to: string;
}

/**
 * Breaks every cycle by keeping, inside each cycle, only edges to nodes earlier in the list (seed 2.6
 * rule 6); edges that are part of no cycle are left alone. Returns the new nodes and the cut edges.
 */
export function breakCycles<T extends GraphNode>(nodes: readonly T[]): { nodes: T[]; cut: CutEdge[] } {
  const position = new Map(nodes.map((n, i) => [n.id, i]));
  const component = new Map<string, number>();
  stronglyConnected(nodes).forEach((ids, c) => {
    for (const id of ids) component.set(id, c);
  });
  const cut: CutEdge[] = [];
  const out = nodes.map((n) => {
    const me = position.get(n.id)!;
    const kept = n.depends_on.filter((dep) => {
      const inCycle = component.get(dep) === component.get(n.id);
      const forward = (position.get(dep) ?? -1) >= me;
      if (inCycle && forward) {
        cut.push({ from: n.id, to: dep });
        return false;
      }
      return true;
    });
    return { ...n, depends_on: kept };
  });
  return { nodes: out, cut };
}

/** Rounds after which layering gives up and runs the rest in one layer (seed 2.6 guard). */
export const LEVELS_GUARD = 20;

/**
 * Topological layers: nodes whose dependencies are all in earlier layers; each layer may run in
 * parallel. Unknown dependencies are ignored; if no progress is possible (or after the guard), the
 * remaining nodes form one last layer, so layering never loops.
 */
export function levels(plan: { nodes: readonly GraphNode[] }): string[][] {
  const ids = new Set(plan.nodes.map((n) => n.id));
  const done = new Set<string>();
  let remaining = plan.nodes.filter((n) => ids.has(n.id));
  const layers: string[][] = [];
  let rounds = 0;
  while (remaining.length > 0) {
    const ready = remaining.filter((n) => n.depends_on.every((d) => done.has(d) || !ids.has(d)));
    if (ready.length === 0 || rounds >= LEVELS_GUARD - 1) {
      layers.push(remaining.map((n) => n.id));
      break;
    }
    layers.push(ready.map((n) => n.id));
    for (const n of ready) done.add(n.id);
    remaining = remaining.filter((n) => !done.has(n.id));
    rounds += 1;
  }
  return layers;
}

/** True when the nodes form a DAG whose every dependency names a node in the list. */
export function isValidDag(nodes: readonly GraphNode[]): boolean {
  const ids = new Set(nodes.map((n) => n.id));
  if (ids.size !== nodes.length) return false;
  if (nodes.some((n) => n.depends_on.some((d) => !ids.has(d) || d === n.id))) return false;
  return stronglyConnected(nodes).every((c) => c.length === 1);
}
