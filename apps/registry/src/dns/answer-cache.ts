import type { Transport } from './transport.js';
import type { ZoneSnapshot } from './zone-snapshot.js';

/** Queries longer than this are answered but not cached (keys stay small). */
const MAX_KEY_BYTES = 512;

/**
 * Encoded replies by the query's bytes after its ID, per transport, for one zone snapshot.
 * A reply is a pure function of (snapshot, query bytes, transport) with the ID copied, so the raw
 * bytes are an exact key: flags, the question's case and the EDNS size/DO bit are all in them.
 */
export class AnswerCache {
  private readonly maxEntries: number;
  private snapshot: ZoneSnapshot | undefined;
  private readonly udp = new Map<string, Buffer>();
  private readonly tcp = new Map<string, Buffer>();

  /** @param maxEntries entries kept before the cache starts over. @default 10000 */
  constructor(maxEntries = 10_000) {
    this.maxEntries = maxEntries;
  }

  /** Entries held now (both transports). */
  get size(): number {
    return this.udp.size + this.tcp.size;
  }

  /** The cached reply to `msg` under `snapshot`, with `msg`'s ID written in, or undefined. */
  get(snapshot: ZoneSnapshot, msg: Buffer, transport: Transport): Buffer | undefined {
    if (snapshot !== this.snapshot || msg.length > MAX_KEY_BYTES) return undefined;
    const cached = (transport === 'udp' ? this.udp : this.tcp).get(msg.toString('latin1', 2));
    if (cached === undefined) return undefined;
    // A fresh buffer: the stored one must not change while a send still holds this one.
    const reply = Buffer.allocUnsafe(cached.length);
    cached.copy(reply);
    reply[0] = msg[0]!;
    reply[1] = msg[1]!;
    return reply;
  }

  /** Remembers `reply` to `msg` under `snapshot`; a new snapshot empties the cache first. */
  set(snapshot: ZoneSnapshot, msg: Buffer, transport: Transport, reply: Buffer): void {
    if (this.maxEntries <= 0 || msg.length > MAX_KEY_BYTES) return;
    if (snapshot !== this.snapshot || this.size >= this.maxEntries) {
      // Whole-cache invalidation: no reply outlives the zone it was answered from.
      this.udp.clear();
      this.tcp.clear();
      this.snapshot = snapshot;
    }
    // A copy, so the caller may hand `reply` to a socket as it is.
    (transport === 'udp' ? this.udp : this.tcp).set(msg.toString('latin1', 2), Buffer.from(reply));
  }
}
