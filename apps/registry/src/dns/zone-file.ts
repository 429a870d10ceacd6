import { absoluteName } from './names.js';
import { RRTYPE, RRTYPE_NAME } from './rr.js';
import type { RrSet, ZoneNode, ZoneSnapshot } from './zone-snapshot.js';

function typeName(type: number): string {
  return RRTYPE_NAME[type] ?? `TYPE${type}`;
}

function lines(owner: string, set: RrSet): string[] {
  return set.rrs.map((rr) => `${owner}\t${set.ttl}\tIN\t${typeName(set.type)}\t${rr.text}`);
}

function sortedSets(node: ZoneNode): RrSet[] {
  return [...node.rrsets.values()].sort((a, b) => a.type - b.type);
}

/**
 * The zone as an RFC 1035 master file: `$ORIGIN`, `$TTL`, the SOA first, then every name in
 * sorted order with absolute owners; SVCB in RFC 9460 presentation form. Any standard DNS
 * server (knot, BIND, CoreDNS `file`) can serve it as a snapshot.
 */
export function exportZoneFile(snapshot: ZoneSnapshot): string {
  const out = [
    `; Agent Reach zone ${snapshot.apex}, serial ${snapshot.serial}`,
    `$ORIGIN ${snapshot.apex}.`,
    `$TTL ${snapshot.ttl}`,
  ];
  const apexOwner = absoluteName('', snapshot.apex);
  out.push(...lines(apexOwner, snapshot.soa));
  const apex = snapshot.nodes.get('');
  for (const set of apex === undefined ? [] : sortedSets(apex)) {
    if (set.type !== RRTYPE.SOA) out.push(...lines(apexOwner, set));
  }
  const names = [...snapshot.nodes.keys()].filter((name) => name !== '').sort();
  for (const name of names) {
    const owner = absoluteName(name, snapshot.apex);
    for (const set of sortedSets(snapshot.nodes.get(name)!)) out.push(...lines(owner, set));
  }
  return `${out.join('\n')}\n`;
}
