import type { WireRrSet } from './rrset-wire.js';
import type { RrSet, ZoneNode } from './zone-node.js';

export type { RrSet, RrSetsByType, ZoneNode } from './zone-node.js';

/**
 * The zone at one serial. Its names and RRsets are the live zone's, patched in place by each change:
 * a snapshot is read within one task (an answer, an export) and a newer one is taken after a change,
 * so a lookup never sees a half-applied change.
 */
export interface ZoneSnapshot {
  /** Zone name without trailing dot, lower-case. */
  readonly apex: string;
  /** The apex in wire form with its root byte, lower-case: the end of every question name in the zone. */
  readonly apexWire: Buffer;
  /** The apex's wire length including the root byte. */
  readonly apexWireLength: number;
  readonly serial: number;
  readonly ttl: number;
  /** The apex SOA RRset, also the authority of negative answers. */
  readonly soa: RrSet;
  /**
   * A negative answer's authority section: the SOA owned by the apex, encoded once per serial (a
   * negative answer neither looks the apex up nor makes the section).
   */
  readonly negativeAuthority: readonly WireRrSet[];
  /** Nodes by relative lower-case name; the apex is ''. */
  readonly nodes: ReadonlyMap<string, ZoneNode>;
  /** Names that exist only because names below them do (`_tcp`, `_agents`). */
  readonly emptyNonTerminals: ReadonlySet<string>;
}

/** SOA timers other than the serial; `minimum` is the negative-caching TTL. */
export interface SoaTimers {
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}
