/** Members per chunk before a chunk splits: inserts move at most this many slots, whatever the size. */
const CHUNK_MAX = 256;

interface Chunk<V> {
  keys: string[];
  values: V[];
}

/** The last index in `keys` (sorted) whose key is <= `key`, or -1. */
function floorIndex(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! <= key) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Inserts `value` at `at`, moving the rest up one slot: `splice` made an array to return and, on the
 * responder thread, a re-registration's delete and insert in each set made V8 resize the chunk's store.
 */
function insertAt<T>(array: T[], at: number, value: T): void {
  let i = array.length;
  array.push(value);
  for (; i > at; i--) array[i] = array[i - 1]!;
  array[at] = value;
}

/** Removes the slot at `at`, moving the rest down one (no array made, as `splice` does). */
function removeAt<T>(array: T[], at: number): void {
  const last = array.length - 1;
  for (let i = at; i < last; i++) array[i] = array[i + 1]!;
  array.pop();
}

/**
 * Values kept in key order in chunks of at most CHUNK_MAX: a put or delete costs a binary search
 * and a move of one chunk's slots, so its time does not grow with the member count (an RRset of
 * 100,000 records is patched as fast as one of 1,000).
 */
export class SortedMembers<V> {
  private chunks: Chunk<V>[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The chunk that holds `key` or would: the last whose first key is <= key (or the first). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    let found = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.chunks[mid]!.keys[0]! <= key) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  get(key: string): V | undefined {
    if (this.count === 0) return undefined;
    const chunk = this.chunks[this.chunkFor(key)]!;
    const at = floorIndex(chunk.keys, key);
    return at >= 0 && chunk.keys[at] === key ? chunk.values[at] : undefined;
  }

  /**
   * Replaces the value under an existing `key` by `next(old)`, with one search; returns the value it
   * replaced, or undefined when `key` is not there or `next` kept the old value.
   */
  update(key: string, next: (old: V) => V): V | undefined {
    if (this.count === 0) return undefined;
    const chunk = this.chunks[this.chunkFor(key)]!;
    const at = floorIndex(chunk.keys, key);
    if (at < 0 || chunk.keys[at] !== key) return undefined;
    const old = chunk.values[at]!;
    const value = next(old);
    if (value === old) return undefined;
    chunk.values[at] = value;
    return old;
  }

  /** Inserts or replaces the value under `key`; returns the value it replaced. */
  set(key: string, value: V): V | undefined {
    if (this.count === 0) {
      this.chunks.push({ keys: [key], values: [value] });
      this.count = 1;
      return undefined;
    }
    const index = this.chunkFor(key);
    const chunk = this.chunks[index]!;
    const at = floorIndex(chunk.keys, key);
    if (at >= 0 && chunk.keys[at] === key) {
      const old = chunk.values[at];
      chunk.values[at] = value;
      return old;
    }
    insertAt(chunk.keys, at + 1, key);
    insertAt(chunk.values, at + 1, value);
    this.count++;
    if (chunk.keys.length > CHUNK_MAX) {
      const half = chunk.keys.length >>> 1;
      const upper = { keys: chunk.keys.splice(half), values: chunk.values.splice(half) };
      this.chunks.splice(index + 1, 0, upper);
    }
    return undefined;
  }

  /** Removes `key`; returns its value, or undefined when it was not there. */
  delete(key: string): V | undefined {
    if (this.count === 0) return undefined;
    const index = this.chunkFor(key);
    const chunk = this.chunks[index]!;
    const at = floorIndex(chunk.keys, key);
    if (at < 0 || chunk.keys[at] !== key) return undefined;
    const old = chunk.values[at];
    removeAt(chunk.values, at);
    removeAt(chunk.keys, at);
    this.count--;
    if (chunk.keys.length === 0) this.chunks.splice(index, 1);
    return old;
  }

  /** The smallest key. */
  firstKey(): string | undefined {
    return this.chunks[0]?.keys[0];
  }

  /** Values in key order. */
  *values(): IterableIterator<V> {
    for (const chunk of this.chunks) yield* chunk.values;
  }
}
