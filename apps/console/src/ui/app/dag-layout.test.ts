import { describe, expect, it } from 'vitest';
import { layoutDag, NODE_WIDTH } from './dag-layout.js';
import { createRunState, type RunNode } from './run-state.js';

const state = (deps: Record<string, string[]>) => {
  const s = createRunState('ab'.repeat(16));
  for (const [id, dependsOn] of Object.entries(deps)) {
    s.nodes[id] = { id, dependsOn } as RunNode;
    s.order.push(id);
  }
  return s;
};

describe('DAG layout', () => {
  it('places each node right of what it depends on, one edge per dependency, all inside the picture', () => {
    const g = layoutDag(state({ a: [], b: ['a'], c: ['a'], d: ['b', 'c', 'a'], e: ['missing'] }));
    const at = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
    expect(g.edges.map((e) => `${e.from}->${e.to}`).sort()).toEqual(['a->b', 'a->c', 'a->d', 'b->d', 'c->d']);
    for (const e of g.edges) expect(at[e.to]!.x).toBeGreaterThan(at[e.from]!.x);
    for (const n of g.nodes) {
      expect(n.x - n.width / 2).toBeGreaterThanOrEqual(0);
      expect(n.x + n.width / 2).toBeLessThanOrEqual(g.width);
      expect(n.y - n.height / 2).toBeGreaterThanOrEqual(0);
      expect(n.y + n.height / 2).toBeLessThanOrEqual(g.height);
    }
    for (const p of g.edges.flatMap((e) => e.points)) {
      expect(p.x).toBeGreaterThanOrEqual(0);
      expect(p.y).toBeGreaterThanOrEqual(0);
      expect(p.x).toBeLessThanOrEqual(g.width);
      expect(p.y).toBeLessThanOrEqual(g.height);
    }
    expect(g.width).toBeGreaterThanOrEqual(3 * NODE_WIDTH);
  });

  it('draws nothing for a run without nodes', () => {
    expect(layoutDag(state({}))).toEqual({ width: 0, height: 0, nodes: [], edges: [] });
  });
});
