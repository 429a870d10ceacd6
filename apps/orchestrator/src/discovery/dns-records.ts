import { isIP } from 'node:net';
import type { DnsRecord } from '@agent-reach/sdk/dns';
import { readAgentCard, safeDecodeSvcbRdata } from '@agent-reach/sdk/svcb';

const TYPE_A = 1;
const TYPE_SRV = 33;
const TYPE_SVCB = 64;
const TYPE_TXT = 16;

/** One instance DNS lists for a capability, before its card is read. */
export interface DnsTarget {
  /** The instance label: the target name without the zone. */
  instance: string;
  /** The absolute target name, lower-case, without the trailing dot. */
  target: string;
  port: number;
  priority: number;
  weight: number;
  /** An address from an SVCB hint or an A record in the answer, when DNS gave one. */
  address: string | null;
  cardUrl: string | null;
  cardSha256: string | null;
}

/** A record DNS listed that cannot be used, and why. */
export interface RejectedRecord {
  target: string;
  reason: string;
}

function trimDot(name: string): string {
  return (name.endsWith('.') ? name.slice(0, -1) : name).toLowerCase();
}

function instanceLabel(target: string, zone: string): string {
  const suffix = `.${zone}`;
  return target.endsWith(suffix) ? target.slice(0, -suffix.length) : target;
}

/** The addresses in `additionals` (and answers), by owner name. */
export function addressesByName(records: readonly DnsRecord[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const rr of records) {
    const name = trimDot(rr.name);
    if (rr.type === TYPE_A && typeof rr.data === 'string' && isIP(rr.data) === 4 && !out.has(name)) {
      out.set(name, rr.data);
    }
  }
  return out;
}

/** The first A record's address in an answer, or null. */
export function firstAddress(records: readonly DnsRecord[]): string | null {
  for (const rr of records) {
    if (rr.type === TYPE_A && typeof rr.data === 'string' && isIP(rr.data) === 4) return rr.data;
  }
  return null;
}

/** Reads SRV answers into targets; addresses come from the additional section when present. */
export function srvTargets(
  answers: readonly DnsRecord[],
  additionals: readonly DnsRecord[],
  zone: string,
): DnsTarget[] {
  const addresses = addressesByName(additionals);
  const out: DnsTarget[] = [];
  for (const rr of answers) {
    if (rr.type !== TYPE_SRV) continue;
    const data = rr.data as { port?: number; target?: string; priority?: number; weight?: number };
    if (typeof data?.target !== 'string' || typeof data.port !== 'number' || data.port === 0) continue;
    const target = trimDot(data.target);
    out.push({
      instance: instanceLabel(target, zone),
      target,
      port: data.port,
      priority: data.priority ?? 0,
      weight: data.weight ?? 0,
      address: addresses.get(target) ?? null,
      cardUrl: null,
      cardSha256: null,
    });
  }
  return out;
}

/**
 * Reads SVCB ServiceMode answers into targets. One malformed record makes the whole RRset unusable
 * (RFC 9460 section 2.2), so discovery falls through to the SRV names.
 */
export function svcbTargets(
  answers: readonly DnsRecord[],
  additionals: readonly DnsRecord[],
  zone: string,
): { targets: DnsTarget[]; rejected: RejectedRecord[] } {
  const addresses = addressesByName(additionals);
  const targets: DnsTarget[] = [];
  const rejected: RejectedRecord[] = [];
  for (const rr of answers) {
    if (rr.type !== TYPE_SVCB) continue;
    const decoded = rr.data instanceof Uint8Array ? safeDecodeSvcbRdata(rr.data) : null;
    const card = decoded?.ok ? readAgentCard(decoded.value.params) : null;
    if (decoded === null || !decoded.ok || card === null || !card.ok) {
      const why =
        decoded === null
          ? 'no RDATA'
          : !decoded.ok
            ? decoded.error.message
            : card?.ok === false
              ? card.error.message
              : '';
      return { targets: [], rejected: [{ target: rr.name, reason: `svcb_invalid: ${why}` }] };
    }
    const { priority, params } = decoded.value;
    const target = trimDot(decoded.value.target);
    // AliasMode and "." targets point elsewhere; the registry never publishes them for instances.
    if (priority === 0 || target === '') {
      rejected.push({ target: rr.name, reason: 'svcb_alias_mode' });
      continue;
    }
    if (params.port === undefined || params.port === 0) {
      rejected.push({ target, reason: 'svcb_no_port' });
      continue;
    }
    targets.push({
      instance: instanceLabel(target, zone),
      target,
      port: params.port,
      priority,
      weight: 1,
      address: params.ipv4hint?.[0] ?? params.ipv6hint?.[0] ?? addresses.get(target) ?? null,
      cardUrl: card.value.url ?? null,
      cardSha256: card.value.sha256 ?? null,
    });
  }
  return { targets, rejected };
}

/** The character-strings of each TXT record in `records`, one list per record (dns-packet gives Buffers). */
export function txtStrings(records: readonly DnsRecord[]): string[][] {
  const out: string[][] = [];
  for (const r of records) {
    if (r.type !== TYPE_TXT) continue;
    const parts = Array.isArray(r.data) ? r.data : [r.data];
    out.push(parts.map((p) => (Buffer.isBuffer(p) ? p.toString('utf8') : typeof p === 'string' ? p : '')));
  }
  return out;
}
