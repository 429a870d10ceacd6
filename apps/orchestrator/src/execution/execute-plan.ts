import type { Context } from '@opentelemetry/api';
import type { UpstreamOutput } from '../context/index.js';
import type { NodeOutcome } from '../deliverables/index.js';
import type { Binding } from '../discovery/index.js';
import type { Plan } from '../plan/index.js';
import { withSpan } from '../telemetry/index.js';
import type { NodeStatus } from '../traces/status.js';
import { type NodeRunDeps, runNode } from './node-runner.js';

/**
 * Runs the layers in order and the nodes of a layer concurrently (seed 2.7, 3.5). A node that fails —
 * or a bug that throws — never stops the others: `Promise.allSettled` collects every node's end.
 */
export async function executePlan(
  plan: Plan,
  layers: readonly (readonly string[])[],
  bindings: ReadonlyMap<string, Binding>,
  deps: NodeRunDeps,
  runCtx: Context,
): Promise<NodeOutcome[]> {
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const outcomes = new Map<string, NodeOutcome>();
  for (const [layer, ids] of layers.entries()) {
    const nodes = ids.map((id) => byId.get(id)).filter((n) => n !== undefined);
    await deps.log.event({
      type: 'layer_started',
      data: { layer, nodes: nodes.map((n) => n.id), mode: nodes.length > 1 ? 'parallel' : 'serial' },
    });
    await withSpan(
      deps.tracer,
      'reach.layer',
      {
        parent: runCtx,
        attributes: { 'reach.layer': layer, 'reach.nodes': nodes.map((n) => n.id).join(',') },
      },
      async (_span, layerCtx) => {
        const settled = await Promise.allSettled(
          nodes.map((node) => {
            // Upstream in plan order, successes only: a failed dependency leaves a gap, not a stop.
            const upstream: UpstreamOutput[] = plan.nodes
              .filter((n) => node.depends_on.includes(n.id) && outcomes.get(n.id)?.status === 'succeeded')
              .map((n) => ({
                node_id: n.id,
                capability: n.capability,
                output: outcomes.get(n.id)!.output ?? '',
              }));
            return runNode(node, bindings.get(node.id), upstream, deps, layerCtx);
          }),
        );
        for (const [i, result] of settled.entries()) {
          const node = nodes[i]!;
          if (result.status === 'fulfilled') outcomes.set(node.id, result.value);
          else {
            outcomes.set(node.id, {
              node_id: node.id,
              capability: node.capability,
              status: 'failed',
              output: null,
            });
            const message = (result.reason as Error)?.message ?? String(result.reason);
            await deps.log
              .event({
                type: 'node_failed',
                data: { node_id: node.id, stage: 'execution', error: { code: 'INTERNAL', message } },
              })
              .catch(() => {});
          }
        }
      },
    );
    const statuses: Record<string, NodeStatus> = {};
    for (const n of nodes) statuses[n.id] = outcomes.get(n.id)?.status ?? 'failed';
    await deps.log.event({ type: 'layer_finished', data: { layer, statuses } });
  }
  return plan.nodes.map(
    (n) =>
      outcomes.get(n.id) ?? {
        node_id: n.id,
        capability: n.capability,
        status: 'skipped' as const,
        output: null,
      },
  );
}
