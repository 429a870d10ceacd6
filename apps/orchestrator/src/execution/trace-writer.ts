import type { SavePlanInput, TraceEventInput, TraceStore } from '../traces/index.js';
import type { NodePatch, RunLog } from './ports.js';

/**
 * A run's writes to the trace store, kept in order on one queue and off the critical path: `event`
 * and `node` return at once, so agents are called while the store catches up. The first failed
 * write is kept and `flush` throws it, so a run never ends with its record silently incomplete.
 */
export class TraceWriter implements RunLog {
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private readonly capabilities = new Map<string, string>();

  /** @param now wall-clock milliseconds for event times. @default Date.now */
  constructor(
    private readonly store: Pick<TraceStore, 'appendEvent' | 'upsertNode' | 'savePlan'>,
    readonly traceId: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Queues an event, stamped with the time it happened rather than the time it is written. */
  event(event: TraceEventInput): Promise<void> {
    const at = new Date(this.now());
    return this.enqueue(() => this.store.appendEvent(this.traceId, event, { at }));
  }

  /** Queues a node change; the first one for a node must carry its capability. */
  node(nodeId: string, patch: NodePatch & { capability?: string }): Promise<void> {
    if (patch.capability !== undefined) this.capabilities.set(nodeId, patch.capability);
    const capability = this.capabilities.get(nodeId) ?? 'unknown';
    return this.enqueue(() => this.store.upsertNode(this.traceId, { ...patch, node_id: nodeId, capability }));
  }

  /** Queues the plan. */
  plan(input: SavePlanInput): Promise<void> {
    return this.enqueue(() => this.store.savePlan(this.traceId, input));
  }

  /** Waits for every queued write; throws the first failure. */
  async flush(): Promise<void> {
    await this.tail;
    if (this.failure !== null) throw this.failure;
  }

  private enqueue(write: () => Promise<{ ok: boolean; error?: unknown }>): Promise<void> {
    this.tail = this.tail.then(async () => {
      if (this.failure !== null) return;
      // An in-process store (PGlite) resolves in microtasks only; yielding lets socket events
      // (an agent's connect) be handled between writes instead of after the whole queue.
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        const result = await write();
        if (!result.ok) this.failure = result.error;
      } catch (error) {
        this.failure = error;
      }
    });
    return Promise.resolve();
  }
}
