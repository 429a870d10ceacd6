import type { ZoneRr } from './rr.js';

/** All records of one type at one name. */
export interface RrSet {
  readonly type: number;
  readonly ttl: number;
  readonly rrs: readonly ZoneRr[];
}

/** A name that owns records; `wire` is its relative labels in wire form (no root byte). */
export interface ZoneNode {
  readonly name: string;
  readonly wire: Buffer;
  readonly rrsets: ReadonlyMap<number, RrSet>;
}
