import { describe, expect, it } from 'vitest';
import type { Binding, Discovery } from '../discovery/index.js';
import type { Plan } from '../plan/index.js';
import { TraceEventInput } from '../traces/events.js';
import { bindPlan } from './bind-plan.js';
import type { NodePatch } from './ports.js';

describe('bindPlan', () => {
  it('records agents_bound for every node and capability_unavailable for the unbound ones', async () => {
    const plan: Plan = {
      intent: 't',
      nodes: [
        { id: 'n1', capability: 'writing', depends_on: [], parallel_group: 'g1', purpose: '' },
        { id: 'n2', capability: 'synthesis', depends_on: ['n1'], parallel_group: 'g2', purpose: '' },
      ],
      final_node: 'n2',
      reasoning: '',
    };
    const primary = {
      agent_name: 'writer',
      instance: 'w1',
      endpoint: '127.0.0.1:1',
      health: 'healthy',
      priority: 1,
      weight: 1,
      card: { name: 'writer' },
    };
    const index = {
      bind: (_d: Discovery, capability: string): Binding =>
        capability === 'writing'
          ? ({
              ok: true,
              capability,
              primary,
              alternates: [],
              selection: {
                strategy: 'priority_then_weighted_random',
                priority: 1,
                weight: 1,
                pool: 1,
                source: 'svcb',
              },
            } as unknown as Binding)
          : { ok: false, capability, reason: 'no_dns_record', failed: [] },
    };
    const events: TraceEventInput[] = [];
    const patches: Array<[string, NodePatch]> = [];
    const bindings = await bindPlan(plan, index, {} as Discovery, {
      event: async (e) => void events.push(TraceEventInput.parse(e)),
      node: async (id, p) => void patches.push([id, p]),
    });
    expect(bindings.get('n1')?.ok).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['capability_unavailable', 'agents_bound']);
    expect(events[0]!.data).toMatchObject({
      node_id: 'n2',
      capability: 'synthesis',
      reason: 'no_dns_record',
    });
    expect(events[1]!.data).toMatchObject({
      bindings: [
        { node_id: 'n1', agent: 'writer' },
        { node_id: 'n2', agent: null },
      ],
    });
    expect(patches).toContainEqual(['n2', expect.objectContaining({ status: 'unavailable' })]);
    expect(patches).toContainEqual([
      'n1',
      expect.objectContaining({ agent: 'writer', instance_id: 'w1', endpoint: '127.0.0.1:1' }),
    ]);
  });
});
