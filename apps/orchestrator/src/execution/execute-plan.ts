import type { Context } from '@opentelemetry/api';
import type { UpstreamOutput } from '../context/index.js';
import type { NodeOutcome } from '../deliverables/index.js';
import type { Binding } from '../discovery/index.js';
import type { Plan } from '../plan/index.js';
import { withSpan } from '../telemetry/index.js';
import type { NodeStatus } from '../traces/status.js';
import { type NodeResume, type NodeRunDeps, runNode } from './node-runner.js';

/** What a resumed run takes from its record: nodes that ended (reused as they are) and calls in flight. */
export interface ResumedNodes {
  done: ReadonlyMap<string, NodeOutcome>;
  inFlight: ReadonlyMap<string, NodeResume>;
}

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
  resumed?: ResumedNodes,
): Promise<NodeOutcome[]> {
  const byId = new Map(plan.nodes.map((n) => [n.id, n]));
  const outcomes = new Map<string, NodeOutcome>(resumed?.done ?? []);
  for (const [layer, ids] of layers.entries()) {
    const inLayer = ids.map((id) => byId.get(id)).filter((n) => n !== undefined);
    // A resumed run runs only what its previous owner did not finish; a finished layer is not repeated.
    const nodes = inLayer.filter((n) => !outcomes.has(n.id));
    if (nodes.length === 0) continue;
    const reused = inLayer.filter((n) => outcomes.has(n.id)).map((n) => n.id);
    await deps.log.event({
      type: 'layer_started',
      data: {
        layer,
        nodes: nodes.map((n) => n.id),
        mode: nodes.length > 1 ? 'parallel' : 'serial',
        ...(reused.length > 0 ? { reused } : {}),
      },
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
            return runNode(
              node,
              bindings.get(node.id),
              upstream,
              deps,
              layerCtx,
              resumed?.inFlight.get(node.id),
            );
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
    for (const n of inLayer) statuses[n.id] = outcomes.get(n.id)?.status ?? 'failed';
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
