import type { ZoneRr } from './rr.js';
import type { WireRrSet } from './rrset-wire.js';

/** All records of one type at one name. */
export interface RrSet {
  readonly type: number;
  readonly ttl: number;
  /** The records in order (built on each read: for export and tests, not for answers). */
  readonly rrs: readonly ZoneRr[];
  /** The set as answer records owned by the question name (the leading 64 KiB, and the whole size). */
  answerWire(): WireRrSet;
  /** The set as records owned by the relative name `owner` (authority and additional sections). */
  ownedWire(owner: Buffer): WireRrSet;
  /** The in-zone names, each once, whose addresses are glue for the records answerWire() holds. */
  glueNames(): readonly string[];
}

/** A name's RRsets by type. */
export interface RrSetsByType {
  get(type: number): RrSet | undefined;
  has(type: number): boolean;
  keys(): IterableIterator<number>;
  values(): IterableIterator<RrSet>;
}

/** A name that owns records; `wire` is its relative labels in wire form (no root byte). */
export interface ZoneNode {
  readonly name: string;
  readonly wire: Buffer;
  readonly rrsets: RrSetsByType;
}
