/**
 * Every DNS owner name of the zone (ARCHITECTURE section 3), relative to the apex. The registry
 * publishes these names, the SDK's DNS fallback and the orchestrator's discovery read them: this is
 * the one place that spells them.
 */

/** The DNS-AID protocol label our agents publish under (`_{name}._{protocol}._agents`). */
export const DNS_AID_PROTOCOL = 'a2a';

/** The `bap` value our agents carry: the application protocol and its major version. */
export const DNS_AID_BAP = 'a2a/1';

/** The relative names (without the apex) of every kind of node in the zone. */
export const DnsNames = {
  apex: '',
  /** The responder's own name (the apex NS target and the SOA MNAME). */
  nameServer: 'ns',
  /** An instance's flat name: its A/AAAA and its own SVCB. */
  instance: (label: string) => label,
  /** DNS-AID's `_{name}._{protocol}._agents`: one SVCB per live instance, plus the `capabilities=` TXT. */
  capabilitySvcb: (capability: string) => `_${capability}._${DNS_AID_PROTOCOL}._agents`,
  /** The role SRV of a capability. */
  capabilitySrv: (capability: string) => `_${capability}._tcp`,
  /** The generic SRV that lists every live instance. */
  genericSrv: '_agent._tcp',
  /** DNS-AID's index TXT (`agents=<name>:<protocol>,…`). */
  index: '_index._agents',
} as const;

/** The fully qualified name (no trailing dot) of a relative zone name under `zone`. */
export function ownerName(relative: string, zone: string): string {
  const apex = zone.replace(/\.$/, '');
  return relative === '' ? apex : `${relative}.${apex}`;
}

/** The three names a capability is resolved through, in the order a client asks them. */
export function capabilityQueryNames(capability: string, zone: string) {
  return {
    svcb: ownerName(DnsNames.capabilitySvcb(capability), zone),
    roleSrv: ownerName(DnsNames.capabilitySrv(capability), zone),
    genericSrv: ownerName(DnsNames.genericSrv, zone),
  };
}
