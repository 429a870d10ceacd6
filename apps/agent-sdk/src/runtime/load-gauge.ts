/** Slots of the shared load array; the heartbeat worker reads the same indices. */
export const LOAD_SLOT = { inFlight: 0, capacity: 1, queue: 2, seq: 3 } as const;
const SLOTS = 4;

/**
 * Load figures in shared memory: the main thread writes them, the heartbeat worker reads them with
 * Atomics, so a blocked main thread never delays a heartbeat's figures.
 */
export class LoadGauge {
  /** The memory to hand to the heartbeat worker. */
  readonly buffer: SharedArrayBuffer;
  private readonly view: Int32Array;

  constructor(capacity: number) {
    this.buffer = new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
    this.view = new Int32Array(this.buffer);
    Atomics.store(this.view, LOAD_SLOT.capacity, capacity);
  }

  /** Requests whose handler has not settled yet. */
  get inFlight(): number {
    return Atomics.load(this.view, LOAD_SLOT.inFlight);
  }

  /** Concurrent requests the agent accepts before answering 429. */
  get capacity(): number {
    return Atomics.load(this.view, LOAD_SLOT.capacity);
  }

  /** Takes a slot if one is free; false means the agent is at capacity. */
  tryAcquire(): boolean {
    for (;;) {
      const current = Atomics.load(this.view, LOAD_SLOT.inFlight);
      if (current >= this.capacity) return false;
      if (Atomics.compareExchange(this.view, LOAD_SLOT.inFlight, current, current + 1) === current)
        return true;
    }
  }

  /** Gives a slot back. */
  release(): void {
    Atomics.sub(this.view, LOAD_SLOT.inFlight, 1);
  }

  /** The last heartbeat seq the worker sent (shared so a respawned worker continues the sequence). */
  get lastSeq(): number {
    return Atomics.load(this.view, LOAD_SLOT.seq);
  }
}
