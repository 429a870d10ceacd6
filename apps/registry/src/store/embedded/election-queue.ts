import type { Leadership } from '../store.js';

/** One candidacy in an in-process election. */
class Candidacy implements Leadership {
  #isLeader = false;
  #ended = false;
  readonly #listeners = new Set<(isLeader: boolean) => void>();
  readonly #withdraw: (self: Candidacy) => void;

  constructor(
    readonly candidate: string,
    withdraw: (self: Candidacy) => void,
  ) {
    this.#withdraw = withdraw;
  }

  get isLeader(): boolean {
    return this.#isLeader;
  }

  onChange(listener: (isLeader: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async resign(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#withdraw(this);
    this.set(false);
  }

  /** Records a change and tells listeners afterwards, never re-entrantly. */
  set(isLeader: boolean): void {
    if (this.#isLeader === isLeader) return;
    this.#isLeader = isLeader;
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(isLeader);
    });
  }

  end(): void {
    this.#ended = true;
    this.set(false);
  }
}

/** In-process elections: per name, candidates queue in arrival order and the head leads. */
export class ElectionQueue {
  readonly #queues = new Map<string, Candidacy[]>();

  /** Joins the election `name`; the first candidate leads at once, later ones wait their turn. */
  campaign(name: string, candidate: string): Leadership {
    const queue = this.#queues.get(name) ?? [];
    this.#queues.set(name, queue);
    const candidacy = new Candidacy(candidate, (self) => this.#withdraw(name, self));
    queue.push(candidacy);
    if (queue.length === 1) candidacy.set(true);
    return candidacy;
  }

  /** Ends every candidacy (the store is closing): leaders learn that they lost. */
  closeAll(): void {
    for (const queue of this.#queues.values()) for (const candidacy of queue) candidacy.end();
    this.#queues.clear();
  }

  #withdraw(name: string, candidacy: Candidacy): void {
    const queue = this.#queues.get(name);
    if (queue === undefined) return;
    const index = queue.indexOf(candidacy);
    if (index < 0) return;
    queue.splice(index, 1);
    if (queue.length === 0) this.#queues.delete(name);
    else if (index === 0) queue[0]!.set(true);
  }
}
