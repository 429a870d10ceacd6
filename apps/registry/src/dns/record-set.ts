import { wireRdataLength, type ZoneRr } from './rr.js';
import { encodeOneRr, encodeRrs, type WireRrSet, wireRrSize } from './rrset-wire.js';
import { SortedMembers } from './sorted-members.js';
import type { RrSet } from './zone-node.js';

/** Shared by every set without glue (most are: an instance's own A and SVCB are made per answer). */
const NO_GLUE: readonly string[] = [];

function uniqueGlue(rrs: Iterable<ZoneRr>, count: number): readonly string[] {
  let names: Set<string> | undefined;
  let seen = 0;
  for (const rr of rrs) {
    if (seen++ >= count) break;
    if (rr.glue === undefined) continue;
    names ??= new Set();
    names.add(rr.glue);
  }
  return names === undefined ? NO_GLUE : [...names];
}

/** A set's answer encoding, made on first read of its octets: a UDP answer truncated by `size` never encodes. */
class LazyWire implements WireRrSet {
  #wire: WireRrSet | undefined;

  constructor(
    readonly size: number,
    private readonly encode: () => WireRrSet,
  ) {}

  private get wire(): WireRrSet {
    this.#wire ??= this.encode();
    return this.#wire;
  }

  get bytes(): Buffer {
    return this.wire.bytes;
  }

  get count(): number {
    return this.wire.count;
  }

  get rrEnds(): readonly number[] {
    return this.wire.rrEnds;
  }

  get patches(): readonly number[] {
    return this.wire.patches;
  }
}

/** An RRset whose records never change (the SOA of one serial, NS, an instance's own records, the index). */
export class FixedRrSet implements RrSet {
  /** The last encoding made and the owner it was made for (null: the question name). */
  #wire: WireRrSet | undefined;
  #owner: Buffer | null = null;

  constructor(
    readonly type: number,
    readonly ttl: number,
    readonly rrs: readonly ZoneRr[],
  ) {}

  answerWire(): WireRrSet {
    return this.ownedWire(null);
  }

  /**
   * Kept for the next answer with the same owner (the zone's sets live until they change: the SOA of a
   * serial is in every negative answer); an instance's own sets are made per answer and dropped with it.
   */
  ownedWire(owner: Buffer | null): WireRrSet {
    if (this.#wire !== undefined && this.#owner === owner) return this.#wire;
    if (this.rrs.length === 1) {
      this.#wire = encodeOneRr(this.type, this.ttl, this.rrs[0]!, owner);
      this.#owner = owner;
      return this.#wire;
    }
    let size = 0;
    for (const rr of this.rrs) size += wireRrSize(owner, wireRdataLength(rr));
    this.#wire = encodeRrs(this.type, this.ttl, this.rrs, owner, size);
    this.#owner = owner;
    return this.#wire;
  }

  glueNames(): readonly string[] {
    if (this.rrs.length === 1) {
      // One record (an instance's own, made per answer): no Set to find its one name.
      const { glue } = this.rrs[0]!;
      return glue === undefined ? NO_GLUE : [glue];
    }
    return uniqueGlue(this.rrs, this.rrs.length);
  }
}

/**
 * An RRset patched in place, one record per member key (an instance id), kept in key order: a put or
 * delete costs the same at 100,000 members as at 1,000. Its answer encoding holds at most 64 KiB of
 * leading records (all any message can carry), made on the first answer after a change.
 */
export class RecordSet implements RrSet {
  private readonly members = new SortedMembers<ZoneRr>();
  private rdataBytes = 0;
  private encoded: WireRrSet | undefined;
  /** The buffer the last answer encoding was written to, reused by the next (answers copy from it). */
  private scratch: Buffer | undefined;

  constructor(
    readonly type: number,
    readonly ttl: number,
  ) {}

  get count(): number {
    return this.members.size;
  }

  get(key: string): ZoneRr | undefined {
    return this.members.get(key);
  }

  /** The smallest member key. */
  firstKey(): string | undefined {
    return this.members.firstKey();
  }

  put(key: string, rr: ZoneRr): void {
    const old = this.members.set(key, rr);
    this.rdataBytes += wireRdataLength(rr) - (old === undefined ? 0 : wireRdataLength(old));
    this.encoded = undefined;
  }

  /** Replaces a member's record by `next(old)` with one search (nothing when `key` is not a member). */
  update(key: string, next: (old: ZoneRr) => ZoneRr): void {
    let made: ZoneRr | undefined;
    const old = this.members.update(key, (rr) => {
      made = next(rr);
      return made;
    });
    if (old === undefined) return;
    this.rdataBytes += wireRdataLength(made!) - wireRdataLength(old);
    this.encoded = undefined;
  }

  delete(key: string): void {
    const old = this.members.delete(key);
    if (old === undefined) return;
    this.rdataBytes -= wireRdataLength(old);
    this.encoded = undefined;
  }

  get rrs(): readonly ZoneRr[] {
    return [...this.members.values()];
  }

  answerWire(): WireRrSet {
    if (this.encoded === undefined) {
      const size = this.members.size * wireRrSize(null, 0) + this.rdataBytes;
      this.encoded = new LazyWire(size, () => {
        const wire = encodeRrs(this.type, this.ttl, this.members.values(), null, size, this.scratch);
        if (this.scratch === undefined || wire.bytes.buffer !== this.scratch.buffer)
          this.scratch = wire.bytes;
        return wire;
      });
    }
    return this.encoded;
  }

  ownedWire(owner: Buffer | null): WireRrSet {
    const size = this.members.size * wireRrSize(owner, 0) + this.rdataBytes;
    return encodeRrs(this.type, this.ttl, this.members.values(), owner, size);
  }

  glueNames(): readonly string[] {
    return uniqueGlue(this.members.values(), this.answerWire().count);
  }
}
