import type { Binding, Candidate, CapabilityIndex, Discovery } from '../discovery/index.js';
import type { Plan } from '../plan/index.js';
import type { RunLog } from './ports.js';

/** How a candidate is shown in events and node rows (no card body). */
export function candidateRef(c: Candidate) {
  return {
    instance: c.instance,
    agent: c.agent_name,
    endpoint: c.endpoint,
    health: c.health,
    priority: c.priority,
    weight: c.weight,
  };
}

/**
 * Binds every node to a primary and up to three alternates (seed 3.4). A node without candidates is
 * recorded with `capability_unavailable` and marked unavailable, never skipped silently.
 */
export async function bindPlan(
  plan: Plan,
  index: Pick<CapabilityIndex, 'bind'>,
  discovery: Discovery,
  log: Pick<RunLog, 'event' | 'node'>,
): Promise<Map<string, Binding>> {
  const out = new Map<string, Binding>();
  const bindings = [];
  for (const node of plan.nodes) {
    const binding = index.bind(discovery, node.capability);
    out.set(node.id, binding);
    if (binding.ok) {
      const detail = {
        primary: { ...candidateRef(binding.primary), card: binding.primary.card },
        alternates: binding.alternates.map(candidateRef),
        selection: binding.selection,
      };
      bindings.push({
        node_id: node.id,
        capability: node.capability,
        agent: binding.primary.agent_name,
        ...detail,
      });
      await log.node(node.id, {
        agent: binding.primary.agent_name,
        instance_id: binding.primary.instance,
        endpoint: binding.primary.endpoint,
        binding: detail,
      });
    } else {
      bindings.push({ node_id: node.id, capability: node.capability, agent: null, reason: binding.reason });
      await log.event({
        type: 'capability_unavailable',
        data: {
          node_id: node.id,
          capability: node.capability,
          reason: binding.reason,
          failed: binding.failed,
        },
      });
      await log.node(node.id, {
        status: 'unavailable',
        binding: { reason: binding.reason, failed: binding.failed },
      });
    }
  }
  await log.event({ type: 'agents_bound', data: { bindings } });
  return out;
}
