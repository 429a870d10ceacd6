import type { Transport } from './transport.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

/** Queries longer than this are answered but not cached (keys stay small). */
const MAX_KEY_BYTES = 512;

interface Cached {
  reply: Buffer;
  /** Where the reply carries the SOA serial (a negative answer's authority), or -1. */
  serialAt: number;
}

/**
 * Encoded replies by the query's bytes after its ID, per transport. A reply is a pure function of
 * (zone, query bytes, transport) with the ID copied, so the raw bytes are an exact key: flags, the
 * question's case and the EDNS size/DO bit are all in them. Each reply is filed under the name it
 * answers about; when the zone changes, only the names the change touched are dropped (the zone's
 * change log says which), and a negative answer kept across changes gets the current SOA serial.
 */
export class AnswerCache {
  private readonly maxEntries: number;
  private snapshot: ZoneSnapshot | undefined;
  /** Replies by the query's bytes after its ID, one map per transport (a key needs no transport prefix). */
  private readonly replies = { udp: new Map<string, Cached>(), tcp: new Map<string, Cached>() };
  /** Under each zone name, the UDP and TCP keys of the replies about it. */
  private readonly byName = new Map<string, { udp: string[]; tcp: string[] }>();
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
    const cached = this.replies[transport].get(keyOf(msg));
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
    const key = keyOf(msg);
    const replies = this.replies[transport];
    if (replies.has(key)) return;
    // Kept as it is: a reply is never written after it is made (hits are copies).
    replies.set(key, { reply, serialAt });
    this.entries++;
    if (owner === undefined) return;
    let keys = this.byName.get(owner);
    if (keys === undefined) {
      keys = { udp: [], tcp: [] };
      this.byName.set(owner, keys);
    }
    keys[transport].push(key);
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
      const keys = this.byName.get(name);
      if (keys === undefined) continue;
      for (const key of keys.udp) if (this.replies.udp.delete(key)) this.entries--;
      for (const key of keys.tcp) if (this.replies.tcp.delete(key)) this.entries--;
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

/** A flat string of the bytes after the ID (no prefix to concatenate: that made a string to flatten before hashing). */
const keyOf = (msg: Buffer): string => msg.toString('latin1', 2);
