import type { NodeUpsert, SavePlanInput, TraceEventInput, TraceStore } from '../traces/index.js';
import type { NodePatch, RunLog } from './ports.js';

type Op =
  | { kind: 'event'; event: TraceEventInput; at: Date }
  | { kind: 'node'; input: NodeUpsert }
  | { kind: 'plan'; input: SavePlanInput };

/** The store calls a writer makes: batches of events and node changes, and the plan. */
export type TraceWriterStore = Pick<TraceStore, 'appendEvents' | 'upsertNodes' | 'savePlan'>;

/**
 * A run's writes to the trace store, kept in order and off the critical path: `event`, `node` and
 * `plan` return at once; whatever piled up meanwhile is written as one batch per kind (one multi-row
 * INSERT for consecutive events). The first failed write is kept and `flush` throws it, so a run
 * never ends with its record silently incomplete.
 */
export class TraceWriter implements RunLog {
  private pending: Op[] = [];
  private draining: Promise<void> | null = null;
  private failure: unknown = null;
  private readonly capabilities = new Map<string, string>();

  /** @param now wall-clock milliseconds for event times. @default Date.now */
  constructor(
    private readonly store: TraceWriterStore,
    readonly traceId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues an event, stamped with the time it happened rather than the time it is written. */
  event(event: TraceEventInput): Promise<void> {
    return this.enqueue({ kind: 'event', event, at: new Date(this.now()) });
  }

  /** Queues a node change; the first one for a node must carry its capability. */
  node(nodeId: string, patch: NodePatch & { capability?: string }): Promise<void> {
    if (patch.capability !== undefined) this.capabilities.set(nodeId, patch.capability);
    const capability = this.capabilities.get(nodeId) ?? 'unknown';
    return this.enqueue({ kind: 'node', input: { ...patch, node_id: nodeId, capability } as NodeUpsert });
  }

  /** Queues the plan. */
  plan(input: SavePlanInput): Promise<void> {
    return this.enqueue({ kind: 'plan', input });
  }

  /** Waits for every queued write; throws the first failure. */
  async flush(): Promise<void> {
    while (this.draining !== null) await this.draining;
    if (this.failure !== null) throw this.failure;
  }

  private enqueue(op: Op): Promise<void> {
    this.pending.push(op);
    this.draining ??= this.drain().finally(() => {
      this.draining = null;
    });
    return Promise.resolve();
  }

  private async drain(): Promise<void> {
    // Yield first: the run goes on to its next step (an agent's connect) and more writes pile into the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.pending.length > 0) {
      const ops = this.pending;
      this.pending = [];
      for (const group of runsOfKind(ops)) {
        if (this.failure !== null) return;
        try {
          const result = await this.write(group);
          if (!result.ok) this.failure = result.error;
        } catch (error) {
          this.failure = error;
        }
      }
    }
  }

  private write(group: Op[]): Promise<{ ok: boolean; error?: unknown }> {
    const first = group[0]!;
    if (first.kind === 'plan') return this.store.savePlan(this.traceId, first.input);
    if (first.kind === 'node')
      return this.store.upsertNodes(
        this.traceId,
        group.map((op) => (op as Extract<Op, { kind: 'node' }>).input),
      );
    return this.store.appendEvents(
      this.traceId,
      group.map((op) => {
        const e = op as Extract<Op, { kind: 'event' }>;
        return { event: e.event, at: e.at };
      }),
    );
  }
}

/** Consecutive ops of one kind, in order (a plan always stands alone). */
function runsOfKind(ops: Op[]): Op[][] {
  const groups: Op[][] = [];
  for (const op of ops) {
    const last = groups.at(-1);
    if (last !== undefined && op.kind !== 'plan' && last[0]!.kind === op.kind) last.push(op);
    else groups.push([op]);
  }
  return groups;
}
