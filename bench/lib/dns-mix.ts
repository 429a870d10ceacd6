import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { queryPacket } from '../../test/dns/dns-client.js';
import { dnsPacket } from '../../test/dns/dns-packet.js';

/** One question of the wide mix, and what part of the zone it asks. */
export interface MixQuestion {
  name: string;
  type: string;
  kind: string;
}

/** A small deterministic PRNG (mulberry32), so every run sends the same mix in the same order. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function kindOf(owner: string, zone: string): string {
  if (owner === zone) return 'apex';
  if (owner.startsWith('_index._agents.')) return 'index';
  if (owner.startsWith('_agent._tcp.')) return 'all-instances';
  if (/\._a2a\._agents\./.test(owner)) return 'capability';
  if (/^_[a-z0-9_]+\._tcp\./.test(owner)) return 'capability';
  return 'instance';
}

/**
 * Every question the zone can answer, read from its exported zone file: each instance's A and SVCB
 * (and AAAA, which it does not have: NODATA), each capability's SVCB, TXT and SRV, the index TXT, the
 * all-instances SRV, the apex's SOA and NS; plus `nxdomain` names that do not exist. Shuffled, once.
 */
export function wideMix(zoneText: string, zone: string, nxdomain: number): MixQuestion[] {
  const types = new Map<string, Set<string>>();
  for (const line of zoneText.split('\n')) {
    if (line === '' || line.startsWith(';') || line.startsWith('$')) continue;
    const fields = line.split(/\s+/);
    const owner = fields[0]!.replace(/\.$/, '').toLowerCase();
    const type = fields[3]!;
    let set = types.get(owner);
    if (set === undefined) {
      set = new Set();
      types.set(owner, set);
    }
    set.add(type === 'TYPE64' ? 'SVCB' : type);
  }
  const out: MixQuestion[] = [];
  for (const [owner, set] of types) {
    const kind = kindOf(owner, zone);
    for (const type of set) out.push({ name: owner, type, kind: `${kind} ${type}` });
    if (kind === 'instance' && !set.has('AAAA')) out.push({ name: owner, type: 'AAAA', kind: 'NODATA' });
  }
  for (let i = 0; i < nxdomain; i++)
    out.push({ name: `nx-${i.toString(36)}-absent.${zone}`, type: i % 2 ? 'A' : 'SVCB', kind: 'NXDOMAIN' });
  const next = random(22);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Writes the mix as a dnsperf query file (`name type` per line); returns its path. */
export function writeQueryFile(file: string, mix: MixQuestion[]): string {
  writeFileSync(file, `${mix.map((q) => `${q.name} ${q.type}`).join('\n')}\n`);
  return file;
}

/** How many questions of each kind, e.g. `instance A 10000, NXDOMAIN 10000, …`. */
export function describeMix(mix: MixQuestion[]): string {
  const counts = new Map<string, number>();
  for (const q of mix) counts.set(q.kind, (counts.get(q.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${kind} ${n}`).join(', ');
}

/**
 * Asks every question over UDP (EDNS 1232), `concurrency` at a time, each up to 3 times `timeoutMs`
 * apart; resolves with the raw replies.
 */
export function askAll(
  port: number,
  mix: MixQuestion[],
  concurrency = 64,
  timeoutMs = 1000,
): Promise<Buffer[]> {
  const socket = createSocket('udp4');
  const replies: Buffer[] = new Array(mix.length);
  const waiting = new Map<number, { index: number; tries: number; timer: NodeJS.Timeout }>();
  let next = 0;
  let done = 0;
  return new Promise((resolve, reject) => {
    const send = (index: number, tries: number) => {
      const id = index % 65_536;
      const q = mix[index]!;
      const timer = setTimeout(() => {
        waiting.delete(id);
        if (tries >= 3) {
          for (const other of waiting.values()) clearTimeout(other.timer);
          waiting.clear();
          next = mix.length;
          socket.close();
          reject(new Error(`no answer from port ${port} for ${q.name} ${q.type} after 3 tries`));
        } else send(index, tries + 1);
      }, timeoutMs);
      waiting.set(id, { index, tries, timer });
      socket.send(queryPacket(q.name, q.type === 'SVCB' ? 'UNKNOWN_64' : q.type, id), port, '127.0.0.1');
    };
    const pump = () => {
      while (waiting.size < concurrency && next < mix.length) send(next++, 1);
      if (done === mix.length) {
        socket.close();
        resolve(replies);
      }
    };
    socket.on('message', (reply) => {
      const entry = waiting.get(reply.readUInt16BE(0));
      if (entry === undefined) return;
      clearTimeout(entry.timer);
      waiting.delete(reply.readUInt16BE(0));
      replies[entry.index] = reply;
      done++;
      pump();
    });
    socket.on('error', reject);
    pump();
  });
}

/** The parts of a reply two servers must agree on: rcode, TC, and each section's records, order aside. */
function canonical(reply: Buffer): string {
  const m = dnsPacket.decode(reply);
  // The SOA serial is left out: the registry's moves with every change, knot's is the exported file's.
  const rr = (r: { name: string; type: string; ttl?: number; data?: unknown }) =>
    `${r.name.toLowerCase()} ${r.ttl ?? ''} ${r.type} ${JSON.stringify(r.data, (k, v) => (k === 'serial' ? 0 : v?.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v))}`;
  const section = (rrs: unknown[] | undefined) =>
    (rrs ?? [])
      .map((r) => rr(r as never))
      .sort()
      .join('\n');
  const flags = (m as { flags?: number }).flags ?? 0;
  return [
    `rcode ${(m as { rcode?: string }).rcode} tc ${(flags >> 9) & 1}`,
    section(m.answers),
    section((m as { authorities?: unknown[] }).authorities),
  ].join('\n--\n');
}

/** What the comparison of two servers' answers found. */
export interface Comparison {
  questions: number;
  /** Questions whose rcode, TC bit, answer or authority records differ: must be 0. */
  contentDiffers: MixQuestion[];
  /** Questions whose replies differ in length (e.g. name compression, additional records). */
  sizeDiffers: number;
  bytesA: number;
  bytesB: number;
}

/** Compares two servers' replies to every question of the mix, content and size. */
export async function compareServers(portA: number, portB: number, mix: MixQuestion[]): Promise<Comparison> {
  const a = await askAll(portA, mix);
  const b = await askAll(portB, mix);
  const result: Comparison = {
    questions: mix.length,
    contentDiffers: [],
    sizeDiffers: 0,
    bytesA: 0,
    bytesB: 0,
  };
  for (let i = 0; i < mix.length; i++) {
    result.bytesA += a[i]!.length;
    result.bytesB += b[i]!.length;
    if (a[i]!.length !== b[i]!.length) result.sizeDiffers++;
    if (canonical(a[i]!) !== canonical(b[i]!)) result.contentDiffers.push(mix[i]!);
  }
  return result;
}

/** For an error message: the first differing question's two decoded replies. */
export async function showDifference(portA: number, portB: number, q: MixQuestion): Promise<string> {
  const [a] = await askAll(portA, [q]);
  const [b] = await askAll(portB, [q]);
  return `${q.name} ${q.type}:\n A: ${canonical(a!)}\n B: ${canonical(b!)}`;
}

/**
 * The registry's zone once it stopped changing (two exports `intervalMs` apart equal but for the
 * serial): right after registrations the leader's weight pass still republishes weights, and a
 * comparison with knot needs the zone knot was loaded with.
 */
export async function stableZone(
  registryUrl: string,
  intervalMs = 1500,
  timeoutMs = 60_000,
): Promise<string> {
  const body = (text: string) => text.replace(/serial \d+|\s\d{6,}\s/g, ' ');
  const deadline = performance.now() + timeoutMs;
  let previous = await (await fetch(`${registryUrl}/v1/zone`)).text();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const current = await (await fetch(`${registryUrl}/v1/zone`)).text();
    if (body(current) === body(previous)) return current;
    if (performance.now() > deadline) throw new Error(`the zone kept changing for ${timeoutMs} ms`);
    previous = current;
  }
}
