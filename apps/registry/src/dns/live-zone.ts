import { DnsNames, indexTxtStrings } from '@agent-reach/sdk/protocol';
import { type SrvWeight, wireWeight } from '../weights/weight-of.js';
import { InstanceEntry, type InstanceWeights } from './instance-entry.js';
import { absoluteName, ancestorsOf, labelsToWire, nameToWire } from './names.js';
import { FixedRrSet, RecordSet } from './record-set.js';
import {
  addressRr,
  nsRr,
  RRTYPE,
  rdataUInt16,
  soaRr,
  txtRr,
  withSoaSerial,
  withSrvWeight,
  withSvcPriority,
  type ZoneRr,
} from './rr.js';
import type { WireRrSet } from './rrset-wire.js';
import type { RrSet, ZoneNode } from './zone-node.js';
import type { SoaTimers, ZoneSnapshot } from './zone-snapshot.js';

/** The fixed parts of a zone: what a copy of it needs besides the instances. */
export interface ZoneSettings {
  apex: string;
  ttl: number;
  timers: SoaTimers;
  nameServerAddress: string | undefined;
}

export type { InstanceWeights } from './instance-entry.js';

/** A service name with its RRsets in a Map (the apex, `ns`, and the few names capabilities share). */
class SharedNode implements ZoneNode {
  readonly rrsets = new Map<number, RrSet>();
  readonly wire: Buffer;

  constructor(readonly name: string) {
    this.wire = labelsToWire(name);
  }
}

/** The names and RRsets of one capability. */
interface Capability {
  readonly svcbNode: SharedNode;
  readonly svcb: RecordSet;
  /** `_<capability>._tcp`, or null for `agent` (the generic `_agent._tcp` covers it). */
  readonly srvNode: SharedNode | null;
  readonly srv: RecordSet | null;
  /** The member whose DNS-AID TXT is published (the first in name order). */
  txtFrom: string | undefined;
}

type WireWeight = ReturnType<typeof wireWeight>;

/** Whether an SRV record already has this priority and weight (RDATA: priority, weight, port, target). */
const carries = (srv: ZoneRr, w: WireWeight): boolean =>
  rdataUInt16(srv, 0) === w.srvPriority && rdataUInt16(srv, 2) === w.weight;

const weightFor = (weights: InstanceWeights, capability: string): SrvWeight =>
  weights.byCapability[capability] ?? weights.generic;

/**
 * One instance's SRV and index SVCB records while they are laid out: the sets of its capabilities get
 * the same record object wherever the priority and weight are the same (records are never written
 * once placed), not a copy per set: ~600 bytes per instance of two capabilities. A weight change
 * makes its records from the ones they replace (`from`): the same octets but the priority and weight,
 * copied and patched, not encoded again from the entry (~2 KB of garbage per weight before).
 */
class InstanceRecords {
  #genericSrv: ZoneRr | undefined;
  private svcb: ZoneRr | undefined;
  #targetWire: Buffer | undefined;

  constructor(
    private readonly entry: InstanceEntry,
    private readonly generic: WireWeight,
  ) {}

  /** The instance's name in wire form, made once for all the records encoded here (SRV and SVCB targets). */
  private get targetWire(): Buffer {
    this.#targetWire ??= this.entry.targetWire();
    return this.#targetWire;
  }

  /** Made on first use: a weight pass keeps most records as they are. */
  get genericSrv(): ZoneRr {
    this.#genericSrv ??= this.entry.srv(this.generic.srvPriority, this.generic.weight, this.targetWire);
    return this.#genericSrv;
  }

  /** The SRV record at `w`; `from`, any SRV record of this instance, is copied rather than encoded. */
  srv(w: WireWeight, from?: ZoneRr): ZoneRr {
    const generic = w.srvPriority === this.generic.srvPriority && w.weight === this.generic.weight;
    if (generic && this.#genericSrv !== undefined) return this.#genericSrv;
    const made =
      from === undefined
        ? this.entry.srv(w.srvPriority, w.weight, this.targetWire)
        : withSrvWeight(from, w.srvPriority, w.weight);
    if (generic) this.#genericSrv = made;
    return made;
  }

  /** The index SVCB record at `svcPriority`; `from`, any index SVCB record of this instance, is copied rather than encoded. */
  indexSvcb(svcPriority: number, from?: ZoneRr): ZoneRr {
    if (this.svcb === undefined || rdataUInt16(this.svcb, 0) !== svcPriority)
      this.svcb =
        from === undefined
          ? this.entry.indexSvcbAt(svcPriority, this.targetWire)
          : withSvcPriority(from, svcPriority);
    return this.svcb;
  }
}

/**
 * The zone's names and RRsets, laid out as ARCHITECTURE section 3 says and patched in place: a
 * registration touches its own name, its capabilities' SVCB/SRV sets, `_agent._tcp` and (when the
 * set of capabilities moves) the index; a weight touches only the records whose weight moved. No
 * step walks the fleet, so a change costs the same at 100,000 instances as at 1,000.
 * Changes are grouped by `commit()`, which brings the index up to date.
 */
export class LiveZone {
  private readonly nodes = new Map<string, ZoneNode>();
  private readonly emptyNonTerminals = new Set<string>();
  /** How many nodes lie below each service-name ancestor (`_tcp`, `_agents`, `_a2a._agents`). */
  private readonly below = new Map<string, number>();
  private readonly capabilities = new Map<string, Capability>();
  private readonly generic: RecordSet;
  private readonly genericNode = new SharedNode(DnsNames.genericSrv);
  private readonly apexNode = new SharedNode(DnsNames.apex);
  private readonly apexWire: Buffer;
  private indexStale = true;
  /** The SOA set of the last snapshot's serial, and a negative answer's authority section with it. */
  private soaOf: { serial: number; set: RrSet; authority: readonly WireRrSet[] } | undefined;
  /** The zone's SOA record at serial 0, encoded once: each serial's is a copy with the serial written (`withSoaSerial`). */
  private readonly soaRecord: ZoneRr;

  constructor(private readonly settings: ZoneSettings) {
    const { apex, ttl, timers } = settings;
    this.apexWire = nameToWire(apex);
    const names = { mname: absoluteName(DnsNames.nameServer, apex), rname: absoluteName('hostmaster', apex) };
    this.soaRecord = soaRr({ ...names, serial: 0, ...timers }, apex);
    this.generic = new RecordSet(RRTYPE.SRV, ttl);
    this.genericNode.rrsets.set(RRTYPE.SRV, this.generic);
    // The SOA goes first (ANY lists it first); its serial is filled in per snapshot.
    this.apexNode.rrsets.set(RRTYPE.SOA, this.soa(0));
    const nsName = absoluteName(DnsNames.nameServer, apex);
    if (settings.nameServerAddress !== undefined) {
      this.apexNode.rrsets.set(
        RRTYPE.NS,
        new FixedRrSet(RRTYPE.NS, ttl, [nsRr(nsName, DnsNames.nameServer, apex)]),
      );
      const ns = new SharedNode(DnsNames.nameServer);
      const address = addressRr(settings.nameServerAddress);
      ns.rrsets.set(address.type, new FixedRrSet(address.type, ttl, [address.rr]));
      this.addNode(ns);
    } else {
      this.apexNode.rrsets.set(RRTYPE.NS, new FixedRrSet(RRTYPE.NS, ttl, [nsRr(nsName, undefined, apex)]));
    }
    this.addNode(this.apexNode);
    this.commit();
  }

  /** The zone as of the last commit, with the SOA of `serial`. */
  snapshot(serial: number): ZoneSnapshot {
    // One SOA per serial: the slices of one update share theirs (and its encodings, which every
    // negative answer carries), so a snapshot per slice does not encode it again.
    let soaOf = this.soaOf;
    if (soaOf?.serial !== serial) {
      const set = this.soa(serial);
      soaOf = { serial, set, authority: [set.ownedWire(this.apexNode.wire)] };
      this.soaOf = soaOf;
    }
    const soa = soaOf.set;
    this.apexNode.rrsets.set(RRTYPE.SOA, soa);
    const { apex, ttl } = this.settings;
    return {
      apex,
      apexWire: this.apexWire,
      apexWireLength: this.apexWire.length,
      serial,
      ttl,
      soa,
      negativeAuthority: soaOf.authority,
      nodes: this.nodes,
      emptyNonTerminals: this.emptyNonTerminals,
    };
  }

  /**
   * The published entry of `instanceId`, if any. An instance's name is its id, so the names map is
   * also the map of published instances (no second Map of 100,000 entries).
   */
  entry(instanceId: string): InstanceEntry | undefined {
    const node = this.nodes.get(instanceId);
    return node instanceof InstanceEntry ? node : undefined;
  }

  /** The weights published for `instanceId`, if it is in the zone. */
  weights(instanceId: string): InstanceWeights | undefined {
    return this.entry(instanceId)?.weights;
  }

  /** Ids of the instances in the zone. */
  *ids(): IterableIterator<string> {
    for (const [name, node] of this.nodes) if (node instanceof InstanceEntry) yield name;
  }

  /** Adds or replaces an instance (keyed by its name, which is its id). */
  put(entry: InstanceEntry, weights: InstanceWeights): void {
    const old = this.entry(entry.name);
    if (old !== undefined) this.unlay(old);
    entry.weights = weights;
    this.addNode(entry);
    this.lay(entry);
  }

  /** Removes an instance and every record of it. */
  delete(instanceId: string): void {
    const old = this.entry(instanceId);
    if (old === undefined) return;
    this.unlay(old);
    this.removeNode(old.name);
  }

  /** Republishes an instance's weights, patching only the records whose priority or weight moved. */
  setWeights(instanceId: string, weights: InstanceWeights): void {
    const entry = this.entry(instanceId);
    if (entry === undefined) return;
    entry.weights = weights;
    const id = entry.name;
    const generic = wireWeight(weights.generic);
    const records = new InstanceRecords(entry, generic);
    // One search per set (a get and a put were two, ~1-2 µs each at 100,000 members), and no new
    // record where the old one already carries the priority and weight.
    this.generic.update(id, (old) => (carries(old, generic) ? old : records.srv(generic, old)));
    for (const capability of entry.capabilities) {
      const c = this.capabilities.get(capability)!;
      const w = wireWeight(weightFor(weights, capability));
      const svcb = (old: ZoneRr) =>
        rdataUInt16(old, 0) === w.svcPriority ? old : records.indexSvcb(w.svcPriority, old);
      c.svcb.update(id, svcb);
      c.srv?.update(id, (old) => (carries(old, w) ? old : records.srv(w, old)));
    }
  }

  /** Ends a batch of changes: brings the index up to date. */
  commit(): void {
    if (this.indexStale) this.layIndex();
  }

  private soa(serial: number): RrSet {
    return new FixedRrSet(RRTYPE.SOA, this.settings.ttl, [withSoaSerial(this.soaRecord, serial)]);
  }

  /** Puts an instance's records into the generic and capability sets. */
  private lay(entry: InstanceEntry): void {
    const id = entry.name;
    const weights = entry.weights!;
    const records = new InstanceRecords(entry, wireWeight(weights.generic));
    if (this.generic.count === 0) this.addNode(this.genericNode);
    this.generic.put(id, records.genericSrv);
    for (const capability of entry.capabilities) {
      const c = this.capabilities.get(capability) ?? this.addCapability(capability);
      const w = wireWeight(weightFor(weights, capability));
      c.svcb.put(id, records.indexSvcb(w.svcPriority));
      c.srv?.put(id, records.srv(w));
      // The first member in name order gives the capability's TXT; a re-registration may change its text.
      if (c.svcb.firstKey() === id) this.layTxt(c, capability, entry);
    }
  }

  /** Takes an instance's records out of every set that holds them. */
  private unlay(entry: InstanceEntry): void {
    const id = entry.name;
    this.generic.delete(id);
    if (this.generic.count === 0) this.removeNode(DnsNames.genericSrv);
    for (const capability of entry.capabilities) {
      const c = this.capabilities.get(capability)!;
      c.svcb.delete(id);
      c.srv?.delete(id);
      if (c.svcb.count === 0) {
        this.capabilities.delete(capability);
        this.removeNode(c.svcbNode.name);
        if (c.srvNode !== null) this.removeNode(c.srvNode.name);
        this.indexStale = true;
      } else if (c.txtFrom === id) {
        const first = c.svcb.firstKey()!;
        this.layTxt(c, capability, this.entry(first)!);
      }
    }
  }

  private layTxt(c: Capability, capability: string, from: InstanceEntry): void {
    c.txtFrom = from.name;
    c.svcbNode.rrsets.set(
      RRTYPE.TXT,
      new FixedRrSet(RRTYPE.TXT, this.settings.ttl, [from.capabilityTxt(capability)]),
    );
  }

  private addCapability(capability: string): Capability {
    const { ttl } = this.settings;
    const svcbNode = new SharedNode(DnsNames.capabilitySvcb(capability));
    // TXT before SVCB, as ANY lists them; the TXT is laid by the first member.
    svcbNode.rrsets.set(RRTYPE.TXT, new FixedRrSet(RRTYPE.TXT, ttl, []));
    const svcb = new RecordSet(RRTYPE.SVCB, ttl);
    svcbNode.rrsets.set(RRTYPE.SVCB, svcb);
    const srvName = DnsNames.capabilitySrv(capability);
    // `_agent._tcp` is the generic index; a capability named `agent` is already inside it.
    const srvNode = srvName === DnsNames.genericSrv ? null : new SharedNode(srvName);
    const srv = srvNode === null ? null : new RecordSet(RRTYPE.SRV, ttl);
    if (srvNode !== null) srvNode.rrsets.set(RRTYPE.SRV, srv!);
    const c: Capability = { svcbNode, svcb, srvNode, srv, txtFrom: undefined };
    this.capabilities.set(capability, c);
    this.addNode(svcbNode);
    if (srvNode !== null) this.addNode(srvNode);
    this.indexStale = true;
    return c;
  }

  /** `_index._agents`: every capability that exists now (independent of how many instances offer each). */
  private layIndex(): void {
    this.indexStale = false;
    const strings = indexTxtStrings([...this.capabilities.keys()].sort());
    if (strings.length === 0) {
      if (this.nodes.has(DnsNames.index)) this.removeNode(DnsNames.index);
      return;
    }
    const node = new SharedNode(DnsNames.index);
    node.rrsets.set(RRTYPE.TXT, new FixedRrSet(RRTYPE.TXT, this.settings.ttl, strings.map(txtRr)));
    if (this.nodes.has(DnsNames.index)) this.nodes.set(DnsNames.index, node);
    else this.addNode(node);
  }

  private addNode(node: ZoneNode): void {
    const { name } = node;
    const existed = this.nodes.has(name);
    this.nodes.set(name, node);
    if (existed) return;
    this.emptyNonTerminals.delete(name);
    // Instance labels have no dots, so only the few service names have ancestors.
    if (!name.includes('.')) return;
    for (const ancestor of ancestorsOf(name)) {
      this.below.set(ancestor, (this.below.get(ancestor) ?? 0) + 1);
      if (!this.nodes.has(ancestor)) this.emptyNonTerminals.add(ancestor);
    }
  }

  private removeNode(name: string): void {
    if (!this.nodes.delete(name)) return;
    if ((this.below.get(name) ?? 0) > 0) this.emptyNonTerminals.add(name);
    if (!name.includes('.')) return;
    for (const ancestor of ancestorsOf(name)) {
      const left = (this.below.get(ancestor) ?? 1) - 1;
      if (left > 0) {
        this.below.set(ancestor, left);
        continue;
      }
      this.below.delete(ancestor);
      this.emptyNonTerminals.delete(ancestor);
    }
  }
}
