import type { NodePatch, RunLog } from '../execution/ports.js';
import type { TraceEventInput } from './events.js';
import type { FinishTraceInput, NodeUpsert, SavePlanInput } from './inputs.js';
import type { TraceBatch } from './trace-batch.js';
import type { TraceStore } from './trace-store.js';

/** The store call a writer makes: everything queued, in one transaction. */
export type TraceWriterStore = Pick<TraceStore, 'writeBatch'>;

/** How a run ends: the trace row's outcome and its trace_finished event. */
export interface RunEnd {
  trace: FinishTraceInput;
  event: TraceEventInput;
}

/** Options of a TraceWriter. */
export interface TraceWriterOptions {
  /** Wall-clock milliseconds for event times. @default Date.now */
  now?: () => number;
  /**
   * How long writes pile up before they are written (the delay live SSE watchers see at most);
   * `flush` and `finish` write at once. @default 50
   */
  flushDelayMs?: number;
  /** The orchestrator that owns the run: every batch is written only while it still does (fencing). */
  owner?: string;
}

/**
 * A run's writes to the trace store, off the critical path: `event`, `node` and `plan` return at once,
 * and what piled up within `flushDelayMs` is written as one batch (one transaction). `finish` writes
 * the rest together with the run's end, so the record is complete the moment the trace is finished.
 * The first failed write is kept and `flush` throws it, so a run never ends with its record silently
 * incomplete.
 */
export class TraceWriter implements RunLog {
  private events: Array<{ event: TraceEventInput; at: Date }> = [];
  private nodes: NodeUpsert[] = [];
  private planInput: SavePlanInput | undefined;
  private end: TraceBatch['finish'];
  private finished = false;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> | null = null;
  private failure: unknown = null;
  private isSealed = false;
  private readonly capabilities = new Map<string, string>();
  private readonly now: () => number;
  private readonly flushDelayMs: number;
  private readonly owner: string | undefined;

  constructor(
    private readonly store: TraceWriterStore,
    readonly traceId: string,
    options: TraceWriterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.flushDelayMs = options.flushDelayMs ?? 50;
    this.owner = options.owner;
  }

  /** True once the run left this orchestrator (handed over or taken over): nothing more is written. */
  get sealed(): boolean {
    return this.isSealed;
  }

  /**
   * Stops recording: what is queued is written (so the record is a complete prefix for whoever resumes
   * the run), everything after is dropped, including the end. For a run this process gives up.
   */
  async seal(): Promise<void> {
    if (this.isSealed) return;
    this.isSealed = true;
    await this.flush().catch(() => undefined);
  }

  /** Queues an event, stamped with the time it happened rather than the time it is written. */
  event(event: TraceEventInput): Promise<void> {
    if (this.isSealed) return Promise.resolve();
    this.events.push({ event, at: new Date(this.now()) });
    return this.queued();
  }

  /** Queues a node change; the first one for a node must carry its capability. */
  node(nodeId: string, patch: NodePatch & { capability?: string }): Promise<void> {
    if (this.isSealed) return Promise.resolve();
    if (patch.capability !== undefined) this.capabilities.set(nodeId, patch.capability);
    const capability = this.capabilities.get(nodeId) ?? 'unknown';
    this.nodes.push({ ...patch, node_id: nodeId, capability } as NodeUpsert);
    return this.queued();
  }

  /** Queues the plan. */
  plan(input: SavePlanInput): Promise<void> {
    if (this.isSealed) return Promise.resolve();
    this.planInput = input;
    return this.queued();
  }

  /** Writes everything queued now and waits for it; throws the first failure. */
  async flush(): Promise<void> {
    for (;;) {
      if (this.writing !== null) {
        await this.writing;
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (!this.hasPending()) return;
      this.writeNow();
    }
  }

  /**
   * Writes what is queued together with the run's end, in one transaction; resolves to whether this
   * ended the trace (false when it had already ended: the reaper got there first). When an earlier write
   * failed, it throws that failure once and a later call writes the end alone.
   */
  async finish(end: RunEnd): Promise<boolean> {
    if (this.isSealed) return false;
    const stamped = { ...end, at: new Date(this.now()) };
    if (this.failure !== null) {
      this.clear();
      const r = await this.store.writeBatch(this.traceId, { finish: stamped, ...this.ownerField() });
      if (!r.ok) throw r.error;
      return r.value.finished;
    }
    this.end = stamped;
    await this.flush();
    return this.finished;
  }

  private queued(): Promise<void> {
    if (this.timer === null && this.writing === null) {
      this.timer = setTimeout(() => this.writeNow(), this.flushDelayMs);
    }
    return Promise.resolve();
  }

  private hasPending(): boolean {
    return (
      this.events.length > 0 ||
      this.nodes.length > 0 ||
      this.planInput !== undefined ||
      this.end !== undefined
    );
  }

  private writeNow(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.writing !== null || this.failure !== null) return;
    const batch: TraceBatch = {
      ...this.ownerField(),
      events: this.events,
      nodes: this.nodes,
      ...(this.planInput === undefined ? {} : { plan: this.planInput }),
      ...(this.end === undefined ? {} : { finish: this.end }),
    };
    this.clear();
    this.writing = this.write(batch).finally(() => {
      this.writing = null;
      // What was queued while this batch was written waits for the next window (or a flush).
      if (this.hasPending()) void this.queued();
    });
  }

  private async write(batch: TraceBatch): Promise<void> {
    try {
      const r = await this.store.writeBatch(this.traceId, batch);
      if (!r.ok) this.failure = r.error;
      else if (batch.finish !== undefined) this.finished = r.value.finished;
    } catch (error) {
      this.failure = error;
    }
  }

  private ownerField(): { owner?: string } {
    return this.owner === undefined ? {} : { owner: this.owner };
  }

  private clear(): void {
    this.events = [];
    this.nodes = [];
    this.planInput = undefined;
    this.end = undefined;
  }
}
