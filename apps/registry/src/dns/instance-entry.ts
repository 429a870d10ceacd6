import {
  capabilityDescription,
  capabilityTxtStrings,
  type Declaration,
  DNS_AID_BAP,
  DnsNames,
  err,
  isReachError,
  ok,
  publishedCapabilities,
  ReachError,
  type Result,
} from '@agent-reach/sdk/protocol';
import { type SvcParams, withAgentCard } from '@agent-reach/sdk/svcb';
import type { InstanceRecord } from '../store/records.js';
import type { SrvWeight } from '../weights/weight-of.js';
import { absoluteName, HOST_LABEL, labelsToWire, nameToWire, RESERVED_LABELS } from './names.js';
import { FixedRrSet } from './record-set.js';
import {
  addressRr,
  RRTYPE,
  rdataBase64,
  srvRr,
  srvRrWithTargetWire,
  svcbRr,
  svcbRrFromBase64,
  txtRr,
  withSvcTarget,
  type ZoneRr,
} from './rr.js';
import type { RrSet, RrSetsByType, ZoneNode } from './zone-node.js';

/** An instance's weights as data: the generic `_agent._tcp` one and one per published capability. */
export interface InstanceWeights {
  generic: SrvWeight;
  byCapability: Record<string, SrvWeight>;
}

/**
 * One instance's DNS data, encoded once per registration change, and its own name in the zone (its
 * address and its SVCB). A class with nothing but its fields: the zone holds 100,000 of them, so
 * the records derived from it (SRV, index SVCB at a priority) are made when a change needs them.
 * It keeps of the registration only what those need (the declaration, which its version's instances
 * share, and the port), not the record: the responder thread's replica holds nothing else of it.
 */
export class InstanceEntry implements ZoneNode, RrSetsByType {
  /** The weights a zone publishes it with, while it is laid out in one (LiveZone). */
  weights: InstanceWeights | undefined = undefined;

  constructor(
    readonly declaration: Declaration,
    readonly port: number,
    /** Relative owner name of the instance (its label, which is its id). */
    readonly name: string,
    private readonly apex: string,
    private readonly ttl: number,
    private readonly addressType: number,
    private readonly addressRr: ZoneRr,
    /** `1 . alpn=… port=…` at the instance's own name. */
    readonly selfSvcb: ZoneRr,
  ) {}

  /** Absolute target name (`<instance>.<zone>.`). */
  get target(): string {
    return absoluteName(this.name, this.apex);
  }

  /** The instance's relative name in wire form. */
  get wire(): Buffer {
    return labelsToWire(this.name);
  }

  get address(): { readonly type: number; readonly rr: ZoneRr } {
    return { type: this.addressType, rr: this.addressRr };
  }

  /** The capabilities it publishes, sorted. */
  get capabilities(): readonly string[] {
    return publishedCapabilities(this.declaration);
  }

  /** The DNS-AID TXT this instance would give a capability's name (`capabilities=`, `description=`). */
  capabilityTxt(capability: string): ZoneRr {
    return txtRr(capabilityTxtStrings(capability, capabilityDescription(this.declaration, capability)));
  }

  /** The instance's absolute name in wire form: the target of its SRV and index SVCB records. */
  targetWire(): Buffer {
    return nameToWire(this.target);
  }

  /**
   * `<priority> <instance>.<zone>. …` for the capability index: the self record with the instance as
   * target and this SvcPriority (`targetWire`: this instance's, if the caller holds it).
   */
  indexSvcbAt(priority: number, targetWire = this.targetWire()): ZoneRr {
    return withSvcTarget(this.selfSvcb, targetWire, this.name, priority);
  }

  /** The SRV record pointing at this instance with this priority and weight (`targetWire` as for indexSvcbAt). */
  srv(priority: number, weight: number, targetWire?: Buffer): ZoneRr {
    const { port, name: glue } = this;
    if (!ASCII.test(this.apex)) return srvRr({ priority, weight, port, target: this.target, glue });
    return srvRrWithTargetWire({ priority, weight, port, glue }, targetWire ?? this.targetWire());
  }

  get rrsets(): RrSetsByType {
    return this;
  }

  get(type: number): RrSet | undefined {
    if (type === this.addressType) return new FixedRrSet(type, this.ttl, [this.addressRr]);
    if (type === RRTYPE.SVCB) return new FixedRrSet(type, this.ttl, [this.selfSvcb]);
    return undefined;
  }

  has(type: number): boolean {
    return type === this.addressType || type === RRTYPE.SVCB;
  }

  *keys(): IterableIterator<number> {
    yield this.addressType;
    yield RRTYPE.SVCB;
  }

  *values(): IterableIterator<RrSet> {
    for (const type of this.keys()) yield this.get(type)!;
  }
}

/** The SvcParams every SVCB record of an instance carries (ARCHITECTURE section 3, DNS-AID's layout). */
export function instanceSvcParams(record: InstanceRecord): SvcParams {
  const { endpoint } = record;
  const hint = endpoint.host.includes(':') ? { ipv6hint: [endpoint.host] } : { ipv4hint: [endpoint.host] };
  return withAgentCard(
    { mandatory: ['alpn', 'port'], alpn: [...endpoint.alpn], port: endpoint.port, ...hint },
    { url: record.card_url, sha256: record.card_sha256, bap: [DNS_AID_BAP] },
  );
}

// dns-packet writes SRV target labels as UTF-8 and nameToWire as latin1: the same octets for ASCII.
const ASCII = /^\p{ASCII}*$/u;

/** Encodes an instance's records (TTL `ttl` at its own name), or says why it cannot be published. */
export function instanceEntry(
  record: InstanceRecord,
  apex: string,
  ttl = 0,
): Result<InstanceEntry, ReachError> {
  const label = record.instance_id;
  if (!HOST_LABEL.test(label) || RESERVED_LABELS.has(label)) {
    return err(
      new ReachError('INVALID_DECLARATION', `instance id "${label}" is not a usable DNS host label`, {
        data: { instance_id: label },
      }),
    );
  }
  const name = DnsNames.instance(label);
  try {
    const selfSvcb = svcbRr({ priority: 1, target: '.', params: instanceSvcParams(record) }, name);
    const address = addressRr(record.endpoint.host);
    const entry = new InstanceEntry(
      record.declaration,
      record.endpoint.port,
      name,
      apex,
      ttl,
      address.type,
      address.rr,
      selfSvcb,
    );
    entry.srv(0, 0); // checks the port and target now, not when the zone lays the entry out
    return ok(entry);
  } catch (cause) {
    if (isReachError(cause)) return err(cause);
    return err(new ReachError('INVALID_SVCB', `instance "${label}": ${String(cause)}`, { cause }));
  }
}

/**
 * An InstanceEntry as plain data (it crosses threads): what a replica needs to lay the instance out
 * without encoding its registration again. The main thread's zone encodes every registration anyway
 * (`instanceEntry`, to reject what cannot be published); the responder thread encoding it a second
 * time from the record cost ~10 KB of garbage and most of a put's CPU there (session 15).
 */
export interface InstanceEntryData {
  /** The relative owner name, which is the instance id. */
  name: string;
  declaration: Declaration;
  port: number;
  /** The A or AAAA record's address as text. */
  address: string;
  /** The self SVCB record's RDATA, base64. */
  selfSvcb: string;
}

/** `entry` as data for a replica (`entryFromData`). */
export function entryData(entry: InstanceEntry): InstanceEntryData {
  return {
    name: entry.name,
    declaration: entry.declaration,
    port: entry.port,
    address: entry.address.rr.text,
    selfSvcb: rdataBase64(entry.selfSvcb),
  };
}

/** The InstanceEntry `entryData` described, laid out with this zone's apex and TTL; nothing is re-encoded but the address. */
export function entryFromData(data: InstanceEntryData, apex: string, ttl: number): InstanceEntry {
  const address = addressRr(data.address);
  return new InstanceEntry(
    data.declaration,
    data.port,
    data.name,
    apex,
    ttl,
    address.type,
    address.rr,
    svcbRrFromBase64(data.selfSvcb, data.name),
  );
}
