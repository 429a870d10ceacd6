import type { RrSet, ZoneNode } from './zone-snapshot.js';

/**
 * An RRset encoded for the wire once and copied into every answer. An owner is either a pointer
 * to the question name (0xC00C) or relative labels plus a pointer to the apex, whose offset in
 * the message depends on the question's length and is written at `patches` per answer.
 */
export interface WireRrSet {
  readonly bytes: Buffer;
  readonly count: number;
  /** Offset just past each RR, for trimming at RR boundaries. */
  readonly rrEnds: readonly number[];
  /** Offsets of the two-octet apex pointers to fill in. */
  readonly patches: readonly number[];
}

const CLASS_IN = 1;

function encode(set: RrSet, owner: Buffer | null): WireRrSet {
  const ownerSize = owner === null ? 2 : owner.length + 2;
  let size = 0;
  for (const rr of set.rrs) size += ownerSize + 10 + rr.rdata.length;
  const bytes = Buffer.alloc(size);
  const rrEnds: number[] = [];
  const patches: number[] = [];
  let at = 0;
  for (const rr of set.rrs) {
    if (owner === null) {
      at = bytes.writeUInt16BE(0xc00c, at);
    } else {
      at += owner.copy(bytes, at);
      patches.push(at);
      at += 2;
    }
    at = bytes.writeUInt16BE(set.type, at);
    at = bytes.writeUInt16BE(CLASS_IN, at);
    at = bytes.writeUInt32BE(set.ttl, at);
    at = bytes.writeUInt16BE(rr.rdata.length, at);
    at += rr.rdata.copy(bytes, at);
    rrEnds.push(at);
  }
  return { bytes, count: set.rrs.length, rrEnds, patches };
}

// Snapshots are immutable, so an RRset's encodings never go stale; they go when the snapshot does.
const asAnswer = new WeakMap<RrSet, WireRrSet>();
const asOwned = new WeakMap<RrSet, WireRrSet>();
const glue = new WeakMap<RrSet, readonly string[]>();

/** The RRset as answer records owned by the question name. */
export function answerWire(set: RrSet): WireRrSet {
  let wire = asAnswer.get(set);
  if (wire === undefined) {
    wire = encode(set, null);
    asAnswer.set(set, wire);
  }
  return wire;
}

/** The RRset as records owned by `node` (authority and additional sections). */
export function ownedWire(node: ZoneNode, set: RrSet): WireRrSet {
  let wire = asOwned.get(set);
  if (wire === undefined) {
    wire = encode(set, node.wire);
    asOwned.set(set, wire);
  }
  return wire;
}

/** The in-zone names whose addresses are glue for this RRset, each once. */
export function glueNames(set: RrSet): readonly string[] {
  let names = glue.get(set);
  if (names === undefined) {
    const unique = new Set<string>();
    for (const rr of set.rrs) if (rr.glue !== undefined) unique.add(rr.glue);
    names = [...unique];
    glue.set(set, names);
  }
  return names;
}
