import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidDag, levels } from './graph.js';
import { normalizePlan } from './normalize.js';
import { FINAL_CAPABILITY, MAX_NODES, Plan } from './schema.js';

const catalog = [...DEFAULT_CATALOG];
const mostly = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 5, arbitrary: arb }, { weight: 1, arbitrary: fc.jsonValue() });
const ids = fc.constantFrom('n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'x', '', 'bad id');
// Plan-shaped values reach the deeper rules far more often than arbitrary JSON does.
const planLike = fc.record(
  {
    intent: fc.oneof(fc.string(), fc.jsonValue()),
    nodes: fc.array(
      fc.oneof(
        {
          weight: 5,
          arbitrary: fc.record(
            {
              id: mostly(ids),
              capability: mostly(fc.constantFrom(...catalog, 'dancing', 'SYNTHESIS')),
              depends_on: mostly(fc.array(mostly(ids), { maxLength: 4 })),
              parallel_group: fc.jsonValue(),
              purpose: fc.oneof(fc.constantFrom('实现接口', '写方案', 'write code', ''), fc.jsonValue()),
            },
            { requiredKeys: [] },
          ),
        },
        { weight: 1, arbitrary: fc.jsonValue() },
      ),
      { maxLength: 10 },
    ),
    final_node: fc.oneof(ids, fc.jsonValue()),
    reasoning: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

function assertValid(raw: unknown, task: string): void {
  const { plan } = normalizePlan(raw, { catalog, task });
  expect(Plan.safeParse(plan).success).toBe(true);
  expect(plan.nodes.length).toBeLessThanOrEqual(MAX_NODES);
  expect(isValidDag(plan.nodes)).toBe(true);
  const last = plan.nodes.at(-1)!;
  expect(last.capability).toBe(FINAL_CAPABILITY);
  expect(plan.final_node).toBe(last.id);
  expect(new Set(last.depends_on)).toEqual(new Set(plan.nodes.slice(0, -1).map((n) => n.id)));
  expect(plan.nodes.filter((n) => n.capability === FINAL_CAPABILITY)).toHaveLength(1);
  expect(plan.nodes.every((n) => catalog.includes(n.capability as (typeof catalog)[number]))).toBe(true);
  expect(levels(plan).flat().sort()).toEqual(plan.nodes.map((n) => n.id).sort());
}

describe('normalizePlan on any model output', () => {
  it('always yields a valid DAG of at most MAX_NODES nodes ending in synthesis (any JSON)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (raw, task) => assertValid(raw, task)),
      { numRuns: 500 },
    );
  });

  it('always yields a valid DAG of at most MAX_NODES nodes ending in synthesis (plan-shaped JSON)', () => {
    fc.assert(
      fc.property(planLike, fc.string(), (raw, task) => assertValid(raw, task)),
      { numRuns: 1000 },
    );
  });
});
