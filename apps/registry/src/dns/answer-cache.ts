import type { Transport } from './transport.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

/** Queries longer than this are answered but not cached (keys stay small). */
const MAX_KEY_BYTES = 512;

interface Cached {
  /** The query's bytes after its ID, as latin1 text: what a lookup compares. */
  key: string;
  /** keyHash(key): the map slot it is filed under. */
  hash: number;
  reply: Buffer;
  /** Where the reply carries the SOA serial (a negative answer's authority), or -1. */
  serialAt: number;
  /** The next entry filed under the same hash (a collision), if any. */
  next: Cached | undefined;
}

/**
 * Encoded replies by the query's bytes after its ID, per transport, filed under a hash of those bytes
 * and compared with them in place: a lookup makes no key string (~70 bytes per query before). A reply is a pure function of
 * (zone, query bytes, transport) with the ID copied, so the raw bytes are an exact key: flags, the
 * question's case and the EDNS size/DO bit are all in them. Each reply is filed under the name it
 * answers about; when the zone changes, only the names the change touched are dropped (the zone's
 * change log says which), and a negative answer kept across changes gets the current SOA serial.
 */
export class AnswerCache {
  private readonly maxEntries: number;
  private snapshot: ZoneSnapshot | undefined;
  /** Replies by the hash of the query's bytes after its ID, one map per transport (a key needs no transport prefix). */
  private readonly replies = { udp: new Map<number, Cached>(), tcp: new Map<number, Cached>() };
  /** Under each zone name, the UDP and TCP entries of the replies about it. */
  private readonly byName = new Map<string, { udp: Cached[]; tcp: Cached[] }>();
  private entries = 0;

  /**
   * @param maxEntries entries kept; past them new replies are not kept (until zone changes drop some).
   * Starting over instead made a mix of more distinct questions than this (the wide DNS mix at 10,000
   * instances: 40,000) miss every time and pay for an insertion and its garbage on each query.
   * @default 10000
   */
  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  /** Entries held now (both transports). */
  get size(): number {
    return this.entries;
  }

  /** The cached reply to `msg` under `snapshot`, with `msg`'s ID written in, or undefined. */
  get(snapshot: ZoneSnapshot, msg: Buffer, transport: Transport): Buffer | undefined {
    if (msg.length > MAX_KEY_BYTES) return undefined;
    this.follow(snapshot);
    const cached = find(this.replies[transport].get(hashOf(msg)), msg);
    if (cached === undefined) return undefined;
    // A fresh buffer: the stored one must not change while a send still holds this one.
    const reply = Buffer.allocUnsafe(cached.reply.length);
    cached.reply.copy(reply);
    reply[0] = msg[0]!;
    reply[1] = msg[1]!;
    if (cached.serialAt >= 0) reply.writeUInt32BE(snapshot.serial, cached.serialAt);
    return reply;
  }

  /**
   * Remembers `reply` to `msg` under `snapshot`, filed under the zone name `owner` (none: a reply no
   * zone change can alter); `serialAt` is where it carries the SOA serial, or -1.
   */
  set(
    snapshot: ZoneSnapshot,
    msg: Buffer,
    transport: Transport,
    reply: Buffer,
    owner?: string,
    serialAt = -1,
  ): void {
    if (msg.length > MAX_KEY_BYTES) return;
    this.follow(snapshot);
    if (this.entries >= this.maxEntries) return;
    const replies = this.replies[transport];
    const hash = hashOf(msg);
    const head = replies.get(hash);
    if (find(head, msg) !== undefined) return;
    // Kept as it is: a reply is never written after it is made (hits are copies).
    const cached: Cached = { key: msg.toString('latin1', 2), hash, reply, serialAt, next: head };
    replies.set(hash, cached);
    this.entries++;
    if (owner === undefined) return;
    let filed = this.byName.get(owner);
    if (filed === undefined) {
      filed = { udp: [], tcp: [] };
      this.byName.set(owner, filed);
    }
    filed[transport].push(cached);
  }

  /** Catches up with `snapshot`: drops the replies of every name changed since the last one seen. */
  private follow(snapshot: ZoneSnapshot): void {
    const seen = this.snapshot;
    if (snapshot === seen) return;
    this.snapshot = snapshot;
    if (seen === undefined || seen.changes !== snapshot.changes) {
      this.clear();
      return;
    }
    const names = snapshot.changes.since(seen.generation);
    if (names === undefined) {
      this.clear();
      return;
    }
    for (const name of names) {
      const filed = this.byName.get(name);
      if (filed === undefined) continue;
      for (const cached of filed.udp) if (unfile(this.replies.udp, cached)) this.entries--;
      for (const cached of filed.tcp) if (unfile(this.replies.tcp, cached)) this.entries--;
      this.byName.delete(name);
    }
  }

  private clear(): void {
    this.replies.udp.clear();
    this.replies.tcp.clear();
    this.byName.clear();
    this.entries = 0;
  }
}

/** FNV-1a of a query's bytes after its ID, cut to a small integer (a map key V8 keeps unboxed): where the cache files its reply. */
export function hashOf(msg: Buffer): number {
  let hash = 0x811c9dc5;
  for (let i = 2; i < msg.length; i++) hash = Math.imul(hash ^ msg[i]!, 0x01000193);
  return hash & 0x3fffffff;
}

/** The entry among `head` and those chained after it whose key is `msg`'s bytes after the ID. */
function find(head: Cached | undefined, msg: Buffer): Cached | undefined {
  const length = msg.length - 2;
  for (let cached = head; cached !== undefined; cached = cached.next) {
    const { key } = cached;
    if (key.length !== length) continue;
    let i = 0;
    while (i < length && key.charCodeAt(i) === msg[i + 2]) i++;
    if (i === length) return cached;
  }
  return undefined;
}

/** Takes `cached` out of its hash's chain in `replies`; false when it is not there (dropped already). */
function unfile(replies: Map<number, Cached>, cached: Cached): boolean {
  const head = replies.get(cached.hash);
  if (head === cached) {
    if (cached.next === undefined) replies.delete(cached.hash);
    else replies.set(cached.hash, cached.next);
    return true;
  }
  for (let at = head; at !== undefined; at = at.next)
    if (at.next === cached) {
      at.next = cached.next;
      return true;
    }
  return false;
}
