import {
  capabilityDescription,
  capabilityTxtStrings,
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
import { absoluteName, HOST_LABEL, labelsToWire, nameToWire, RESERVED_LABELS } from './names.js';
import {
  addressRr,
  RRTYPE,
  srvRr,
  srvRrWithTargetWire,
  svcbRr,
  txtRr,
  withSrvWeight,
  withSvcPriority,
  withSvcTarget,
  type ZoneRr,
} from './rr.js';
import type { ZoneNode } from './zone-node.js';

/** One instance's DNS data, encoded once per registration change and reused by every rebuild. */
export interface InstanceEntry {
  readonly record: InstanceRecord;
  /** Relative owner name of the instance (its label). */
  readonly name: string;
  /** Absolute target name (`<instance>.<zone>.`). */
  readonly target: string;
  readonly capabilities: readonly string[];
  /**
   * Per capability: its DNS-AID name (`_<cap>._a2a._agents`, SVCB and TXT), the TXT this instance would
   * put there (`capabilities=`, `description=`), and its role SRV name (null for `agent`, which
   * `_agent._tcp` covers).
   */
  readonly services: readonly { capability: string; svcbName: string; txt: ZoneRr; srvName: string | null }[];
  readonly address: { readonly type: number; readonly rr: ZoneRr };
  /** `1 . alpn=… port=…` at the instance's own name. */
  readonly selfSvcb: ZoneRr;
  /** `1 <instance>.<zone>. …` for the capability index; re-prioritised per capability. */
  readonly indexSvcb: ZoneRr;
  readonly port: number;
  /** The instance's relative name in wire form. */
  readonly wire: Buffer;
  /** The SRV record pointing at this instance with this priority and weight (memoised). */
  srv(priority: number, weight: number): ZoneRr;
  /** The capability-index SVCB record with this SvcPriority (memoised). */
  indexSvcbAt(priority: number): ZoneRr;
  /** The instance's own node (address and SVCB), the same object in every snapshot with this TTL. */
  node(ttl: number): ZoneNode;
}

/** One node object per entry and TTL: answers and glue encoded for it stay cached across snapshots. */
function ownNode(name: string, wire: Buffer, address: { type: number; rr: ZoneRr }, selfSvcb: ZoneRr) {
  let held: ZoneNode | undefined;
  return (ttl: number): ZoneNode => {
    if (held === undefined || held.rrsets.get(RRTYPE.SVCB)!.ttl !== ttl) {
      const rrsets = new Map([
        [address.type, { type: address.type, ttl, rrs: [address.rr] }],
        [RRTYPE.SVCB, { type: RRTYPE.SVCB, ttl, rrs: [selfSvcb] }],
      ]);
      held = { name, wire, rrsets };
    }
    return held;
  };
}

// Weights change rarely and take few distinct values: a small per-instance memo keeps rebuilds to lookups.
const MEMO_LIMIT = 16;

function memo<T>(make: (key: number) => T): (key: number) => T {
  const cache = new Map<number, T>();
  return (key) => {
    let value = cache.get(key);
    if (value === undefined) {
      if (cache.size >= MEMO_LIMIT) cache.clear();
      value = make(key);
      cache.set(key, value);
    }
    return value;
  };
}

/** `memo` for a pair of 16-bit numbers. */
function memo2<T>(make: (high: number, low: number) => T): (high: number, low: number) => T {
  const byKey = memo((key) => make(key >>> 16, key & 0xffff));
  // Returned, not written into the entry literal: tsx would name a closure there (a defineProperty) per entry.
  return (high, low) => byKey(high * 0x10000 + low);
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

/** Encodes an instance's records, or says why it cannot be published. */
export function instanceEntry(record: InstanceRecord, apex: string): Result<InstanceEntry, ReachError> {
  const label = record.instance_id;
  if (!HOST_LABEL.test(label) || RESERVED_LABELS.has(label)) {
    return err(
      new ReachError('INVALID_DECLARATION', `instance id "${label}" is not a usable DNS host label`, {
        data: { instance_id: label },
      }),
    );
  }
  const name = DnsNames.instance(label);
  const target = absoluteName(name, apex);
  try {
    const params = instanceSvcParams(record);
    const port = record.endpoint.port;
    // One encoding of the params: the index record is the self record with the instance as target.
    const selfSvcb = svcbRr({ priority: 1, target: '.', params }, name);
    // The target's wire form serves the index SVCB record and the SRV record.
    const targetWire = nameToWire(target);
    const indexSvcb = withSvcTarget(selfSvcb, { priority: 1, target, params }, name, targetWire);
    // Encoded once; each priority and weight is a copy with its first four octets rewritten.
    const srvFields = { priority: 0, weight: 0, port, target, glue: name };
    const baseSrv = ASCII.test(apex) ? srvRrWithTargetWire(srvFields, targetWire) : srvRr(srvFields);
    const srv = memo2((priority, weight) => withSrvWeight(baseSrv, priority, weight));
    const capabilities = publishedCapabilities(record.declaration);
    const address = addressRr(record.endpoint.host);
    const wire = labelsToWire(name);
    return ok({
      record,
      name,
      target,
      capabilities,
      services: capabilities.map((capability) => {
        const srvName = DnsNames.capabilitySrv(capability);
        // `_agent._tcp` is the generic index; a capability named `agent` is already inside it.
        return {
          capability,
          svcbName: DnsNames.capabilitySvcb(capability),
          txt: txtRr(capabilityTxtStrings(capability, capabilityDescription(record.declaration, capability))),
          srvName: srvName === DnsNames.genericSrv ? null : srvName,
        };
      }),
      address,
      selfSvcb,
      indexSvcb,
      port,
      wire,
      node: ownNode(name, wire, address, selfSvcb),
      srv,
      indexSvcbAt: memo((priority) => withSvcPriority(indexSvcb, priority)),
    });
  } catch (cause) {
    if (isReachError(cause)) return err(cause);
    return err(new ReachError('INVALID_SVCB', `instance "${label}": ${String(cause)}`, { cause }));
  }
}
