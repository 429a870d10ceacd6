/** Batches remembered; a reader further behind than this starts over. */
const MAX_BATCHES = 1024;
/** A batch naming more names than this is remembered as "everything changed". */
const MAX_NAMES = 4096;

/**
 * The owner names each zone change touched, numbered by generation, so a reader that kept
 * something per name (the answer cache) drops only what changed since it last looked.
 */
export class ChangeLog {
  private current = 0;
  /** batches[i] is generation `oldest + i`; null stands for a batch too large to list. */
  private readonly batches: Array<readonly string[] | null> = [];
  private oldest = 1;

  /** The generation of the last batch recorded (0 before any). */
  get generation(): number {
    return this.current;
  }

  /** Records one batch of changed names; returns its generation. */
  record(names: readonly string[]): number {
    this.current++;
    this.batches.push(names.length > MAX_NAMES ? null : names);
    if (this.batches.length > MAX_BATCHES) {
      this.batches.shift();
      this.oldest++;
    }
    return this.current;
  }

  /** The names changed after `generation`, or undefined when they are no longer all known. */
  since(generation: number): string[] | undefined {
    if (generation + 1 < this.oldest) return undefined;
    const names: string[] = [];
    for (let i = generation + 1 - this.oldest; i < this.batches.length; i++) {
      const batch = this.batches[i]!;
      if (batch === null) return undefined;
      names.push(...batch);
    }
    return names;
  }
}
