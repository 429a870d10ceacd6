import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { isValidDag } from './graph.js';
import { normalizePlan } from './normalize.js';
import { MAX_NODES, Plan } from './schema.js';

const ctx = { catalog: [...DEFAULT_CATALOG], task: '设计一个用户下线接口' };
const node = (id: string, capability: string, depends_on: string[] = [], purpose = '实现接口') => ({
  id,
  capability,
  depends_on,
  parallel_group: 'g1',
  purpose,
});
const caps = (plan: Plan) => plan.nodes.map((n) => n.capability);

describe('normalizePlan', () => {
  it('keeps a good plan as it is', () => {
    const raw = {
      intent: '下线接口',
      nodes: [
        node('n1', 'research'),
        node('n2', 'implementation', ['n1']),
        node('n3', 'synthesis', ['n1', 'n2']),
      ],
      final_node: 'n3',
      reasoning: 'r',
    };
    const out = normalizePlan(raw, ctx);
    expect(out.degraded).toBe(false);
    expect(out.warnings).toEqual([]);
    expect(out.plan.nodes.map((n) => [n.id, n.capability, n.depends_on])).toEqual([
      ['n1', 'research', []],
      ['n2', 'implementation', ['n1']],
      ['n3', 'synthesis', ['n1', 'n2']],
    ]);
    expect(out.plan.final_node).toBe('n3');
    expect(Plan.safeParse(out.plan).success).toBe(true);
  });

  it.each([null, 'text', 42, [], { nodes: [] }, { nodes: 'x' }, { intent: 'no nodes' }])(
    'rule 1: %j falls back and is degraded',
    (raw) => {
      const out = normalizePlan(raw, ctx);
      expect(out.degraded).toBe(true);
      expect(caps(out.plan)).toEqual([
        'planning',
        'research',
        'security_review',
        'implementation',
        'synthesis',
      ]);
      expect(out.plan.nodes.map((n) => n.depends_on)).toEqual([
        [],
        ['n1'],
        ['n2'],
        ['n3'],
        ['n1', 'n2', 'n3', 'n4'],
      ]);
      expect(out.warnings.some((w) => w.includes('fallback'))).toBe(true);
    },
  );

  it('rule 1: nodes with no known capability also fall back', () => {
    const out = normalizePlan({ nodes: [node('n1', 'dancing')] }, ctx);
    expect(out.degraded).toBe(true);
  });

  it('rule 2: drops unknown capabilities with a warning and removes edges to them', () => {
    const raw = {
      nodes: [node('a', 'dancing'), node('b', 'research', ['a']), node('c', 'synthesis', ['b'])],
    };
    const out = normalizePlan(raw, ctx);
    expect(caps(out.plan)).toEqual(['research', 'synthesis']);
    expect(out.warnings).toContain('a: unknown capability "dancing" — dropped');
    expect(out.warnings).toContain('b: depends on "a" (unknown capability "dancing") — removed');
  });

  it('rule 3: merges repeated capabilities and redirects edges to the first', () => {
    const raw = {
      nodes: [
        node('r1', 'research'),
        node('r2', 'research'),
        node('p', 'planning', ['r2']),
        node('s', 'synthesis'),
      ],
    };
    const out = normalizePlan(raw, ctx);
    expect(caps(out.plan)).toEqual(['research', 'planning', 'synthesis']);
    expect(out.plan.nodes[1]!.depends_on).toEqual(['r1']);
    expect(out.warnings).toContain('r2: repeats capability research of r1 — merged into r1');
  });

  it('rule 4: implementation without any coding signal becomes writing, with a warning', () => {
    const party = { ...ctx, task: '设计一份生日派对策划' };
    const raw = {
      nodes: [node('n1', 'implementation', [], '给出完整的派对方案'), node('n2', 'synthesis', ['n1'])],
    };
    const out = normalizePlan(raw, party);
    expect(caps(out.plan)).toEqual(['writing', 'synthesis']);
    expect(out.warnings).toContain(
      'n1: implementation → writing (no coding signal in its purpose or the task)',
    );
  });

  it('rule 4: keeps implementation when the purpose or the task speaks of code', () => {
    const viaPurpose = normalizePlan(
      { nodes: [node('n1', 'implementation', [], 'write the logout endpoint')] },
      { ...ctx, task: 'help users leave' },
    );
    expect(caps(viaPurpose.plan)[0]).toBe('implementation');
    const viaTask = normalizePlan({ nodes: [node('n1', 'implementation', [], '交付主体')] }, ctx);
    expect(caps(viaTask.plan)[0]).toBe('implementation');
  });

  it('rule 4 then 3: a corrected node that repeats writing is merged', () => {
    const raw = {
      nodes: [node('w', 'writing', [], '写方案'), node('i', 'implementation', ['w'], '写方案正文')],
    };
    const out = normalizePlan(raw, { ...ctx, task: '写一份派对策划' });
    expect(caps(out.plan)).toEqual(['writing', 'synthesis']);
  });

  it('rule 5: removes self and unknown dependencies with warnings', () => {
    const raw = { nodes: [node('n1', 'research', ['n1', 'ghost']), node('n2', 'synthesis', ['n1'])] };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes[0]!.depends_on).toEqual([]);
    expect(out.warnings).toContain('n1: depends on itself — removed');
    expect(out.warnings).toContain('n1: depends on "ghost" (no such node) — removed');
  });

  it('rule 6: breaks a cycle by keeping only edges to earlier nodes', () => {
    const raw = {
      nodes: [node('a', 'research', ['c']), node('b', 'planning', ['a']), node('c', 'validation', ['b'])],
    };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes.slice(0, 3).map((n) => n.depends_on)).toEqual([[], ['a'], ['b']]);
    expect(out.warnings).toContain('a: dependency on c closes a cycle — removed');
    expect(isValidDag(out.plan.nodes)).toBe(true);
  });

  it('rule 6: keeps a forward edge that is part of no cycle', () => {
    const raw = { nodes: [node('a', 'implementation', ['b']), node('b', 'research')] };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes[0]!.depends_on).toEqual(['b']);
  });

  it('rule 7: moves synthesis last, depending on all, and fixes final_node', () => {
    const raw = {
      nodes: [node('s', 'synthesis'), node('a', 'research', ['s']), node('b', 'planning')],
      final_node: 'a',
    };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes.map((n) => n.id)).toEqual(['a', 'b', 's']);
    expect(out.plan.nodes[2]!.depends_on).toEqual(['a', 'b']);
    expect(out.plan.nodes[0]!.depends_on).toEqual([]);
    expect(out.plan.final_node).toBe('s');
    expect(out.warnings).toContain('final_node "a" is not synthesis — s is final');
    expect(out.warnings).toContain('a: depends on the final node s — removed');
  });

  it('rule 7: adds synthesis when missing', () => {
    const out = normalizePlan({ nodes: [node('n1', 'research'), node('n2', 'planning')] }, ctx);
    expect(out.plan.nodes.at(-1)).toMatchObject({
      id: 'n3',
      capability: 'synthesis',
      depends_on: ['n1', 'n2'],
    });
    expect(out.warnings).toContain('no synthesis node — added n3 as the final node');
  });

  it(`truncates to ${MAX_NODES} nodes and keeps synthesis`, () => {
    const all = [
      'synthesis',
      'planning',
      'research',
      'security_review',
      'validation',
      'implementation',
      'writing',
    ];
    const raw = { nodes: all.map((c, i) => node(`n${i + 1}`, c)) };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes).toHaveLength(MAX_NODES);
    expect(caps(out.plan)).toEqual([
      'planning',
      'research',
      'security_review',
      'validation',
      'implementation',
      'synthesis',
    ]);
    expect(out.warnings).toContain(`n7: over the limit of ${MAX_NODES} nodes — dropped`);
  });

  it('renames missing, malformed and repeated ids but keeps edges to them', () => {
    const raw = {
      nodes: [
        { capability: 'research' },
        { id: 'step one', capability: 'planning' },
        { id: 'x', capability: 'validation', depends_on: 'step one' },
        { id: 'x', capability: 'writing', purpose: '写报告' },
      ],
    };
    const out = normalizePlan(raw, { ...ctx, task: '写报告' });
    expect(out.plan.nodes.map((n) => n.id)).toEqual(['n1', 'n2', 'x', 'n3', 'n5']);
    expect(out.plan.nodes[2]!.depends_on).toEqual(['n2']);
    expect(Plan.safeParse(out.plan).success).toBe(true);
  });

  it('warns about capabilities with no live agent but keeps them', () => {
    const out = normalizePlan({ nodes: [node('n1', 'research')] }, { ...ctx, available: ['synthesis'] });
    expect(caps(out.plan)).toEqual(['research', 'synthesis']);
    expect(out.warnings).toContain('n1: capability research has no live agent right now');
  });

  it('fills missing parallel groups from the layers', () => {
    const raw = {
      nodes: [
        { id: 'a', capability: 'research' },
        { id: 'b', capability: 'planning', depends_on: ['a'] },
      ],
    };
    const out = normalizePlan(raw, ctx);
    expect(out.plan.nodes.map((n) => n.parallel_group)).toEqual(['g1', 'g2', 'g3']);
  });
});
