import { DnsNames, indexTxtStrings } from '@agent-reach/sdk/protocol';
import { type WeightOf, wireWeight } from '../weights/weight-of.js';
import type { InstanceEntry } from './instance-entry.js';
import { absoluteName, ancestorsOf, labelsToWire } from './names.js';
import { addressRr, nsRr, RRTYPE, soaRr, txtRr, type ZoneRr } from './rr.js';
import type { RrSet, ZoneNode } from './zone-node.js';

export type { RrSet, ZoneNode } from './zone-node.js';

/** An immutable view of the whole zone at one serial; lookups never see a half-applied change. */
export interface ZoneSnapshot {
  /** Zone name without trailing dot, lower-case. */
  readonly apex: string;
  /** The apex's labels, for matching question names. */
  readonly apexLabels: readonly string[];
  /** The apex's wire length including the root byte. */
  readonly apexWireLength: number;
  readonly serial: number;
  readonly ttl: number;
  /** The apex SOA RRset, also the authority of negative answers. */
  readonly soa: RrSet;
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

/** What a snapshot is built from. */
export interface SnapshotInput {
  apex: string;
  ttl: number;
  serial: number;
  timers: SoaTimers;
  /** Address of `ns.<zone>` (the responder), when it has a concrete one. */
  nameServerAddress?: string | undefined;
  /** Instances in a stable order (the snapshot keeps it). */
  entries: readonly InstanceEntry[];
  weightOf: WeightOf;
}

class NodeBuilder {
  private readonly nodes = new Map<string, Map<number, ZoneRr[]>>();

  add(name: string, type: number, rr: ZoneRr): void {
    let node = this.nodes.get(name);
    if (node === undefined) {
      node = new Map();
      this.nodes.set(name, node);
    }
    const list = node.get(type);
    if (list === undefined) node.set(type, [rr]);
    else list.push(rr);
  }

  build(ttl: number): Map<string, ZoneNode> {
    const out = new Map<string, ZoneNode>();
    for (const [name, types] of this.nodes) {
      const rrsets = new Map<number, RrSet>();
      for (const [type, rrs] of types) rrsets.set(type, { type, ttl, rrs });
      out.set(name, { name, wire: labelsToWire(name), rrsets });
    }
    return out;
  }
}

/** Lays the zone out exactly as ARCHITECTURE section 3 says, from pre-encoded instance entries. */
export function buildSnapshot(input: SnapshotInput): ZoneSnapshot {
  const { apex, ttl } = input;
  const nodes = new NodeBuilder();
  const nsName = absoluteName(DnsNames.nameServer, apex);
  const soa = soaRr({
    mname: nsName,
    rname: absoluteName('hostmaster', apex),
    serial: input.serial,
    ...input.timers,
  });
  nodes.add(DnsNames.apex, RRTYPE.SOA, soa);
  if (input.nameServerAddress !== undefined) {
    nodes.add(DnsNames.apex, RRTYPE.NS, nsRr(nsName, DnsNames.nameServer));
    const ns = addressRr(input.nameServerAddress);
    nodes.add(DnsNames.nameServer, ns.type, ns.rr);
  } else {
    nodes.add(DnsNames.apex, RRTYPE.NS, nsRr(nsName));
  }

  const capabilities = new Set<string>();
  for (const entry of input.entries) {
    const generic = wireWeight(input.weightOf(entry.record));
    nodes.add(DnsNames.genericSrv, RRTYPE.SRV, entry.srv(generic.srvPriority, generic.weight));
    for (const service of entry.services) {
      // The first instance (in the stable order) to offer a capability gives its DNS-AID TXT.
      if (!capabilities.has(service.capability)) nodes.add(service.svcbName, RRTYPE.TXT, service.txt);
      capabilities.add(service.capability);
      const w = wireWeight(input.weightOf(entry.record, service.capability));
      nodes.add(service.svcbName, RRTYPE.SVCB, entry.indexSvcbAt(w.svcPriority));
      if (service.srvName !== null)
        nodes.add(service.srvName, RRTYPE.SRV, entry.srv(w.srvPriority, w.weight));
    }
  }
  for (const strings of indexTxtStrings([...capabilities].sort()))
    nodes.add(DnsNames.index, RRTYPE.TXT, txtRr(strings));

  const built = nodes.build(ttl);
  // Instance labels hold nothing but the instance's own records (names.ts reserves the others).
  for (const entry of input.entries) built.set(entry.name, entry.node(ttl));
  const emptyNonTerminals = new Set<string>();
  for (const name of built.keys()) {
    // Instance labels have no dots, so only the few service names have ancestors.
    if (!name.includes('.')) continue;
    for (const ancestor of ancestorsOf(name)) if (!built.has(ancestor)) emptyNonTerminals.add(ancestor);
  }
  return {
    apex,
    apexLabels: apex.split('.'),
    apexWireLength: apex.length + 2,
    serial: input.serial,
    ttl,
    soa: built.get(DnsNames.apex)!.rrsets.get(RRTYPE.SOA)!,
    nodes: built,
    emptyNonTerminals,
  };
}
