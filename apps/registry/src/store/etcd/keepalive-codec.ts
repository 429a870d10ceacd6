/**
 * etcd's LeaseKeepAliveRequest `{ int64 ID = 1 }` and LeaseKeepAliveResponse
 * `{ ResponseHeader header = 1; int64 ID = 2; int64 TTL = 3 }` (rpc.proto), in gRPC's
 * length-prefixed framing. Hand-coded: a heartbeat on etcd pays one of each, and these are two
 * varints (protobufjs's generic decode and int64-to-string conversion cost several times more).
 */

/** The longest encoding of one request: 5-byte gRPC prefix, tag, 10-byte varint. */
const MAX_REQUEST_BYTES = 5 + 1 + 10;

/** Writes one framed LeaseKeepAliveRequest for lease `id` (a decimal int64) at `offset`; returns the new offset. */
function writeRequest(out: Buffer, offset: number, id: string): number {
  let value = BigInt.asUintN(64, BigInt(id));
  let at = offset + 6;
  while (value >= 0x80n) {
    out[at++] = Number(value & 0x7fn) | 0x80;
    value >>= 7n;
  }
  out[at++] = Number(value);
  out[offset] = 0;
  out.writeUInt32BE(at - offset - 5, offset + 1);
  out[offset + 5] = 0x08;
  return at;
}

/** Every request of `ids` framed one after another: one write, one HTTP/2 DATA frame for the batch. */
export function encodeKeepAlives(ids: Iterable<string>, count: number): Buffer {
  const out = Buffer.allocUnsafe(count * MAX_REQUEST_BYTES);
  let at = 0;
  for (const id of ids) at = writeRequest(out, at, id);
  return out.subarray(0, at);
}

/** One decoded answer: the lease id (decimal) and its TTL in seconds (0 or less: etcd has no such lease). */
export interface KeepAliveAnswer {
  id: string;
  ttlSeconds: number;
}

function readVarint(buf: Buffer, start: number, end: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  let at = start;
  while (at < end) {
    const byte = buf[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return { value, next: at };
    shift += 7n;
  }
  throw new Error('truncated varint in a LeaseKeepAliveResponse');
}

/** Decodes one LeaseKeepAliveResponse message (without its gRPC prefix). */
export function decodeKeepAlive(message: Buffer): KeepAliveAnswer {
  let id = '0';
  let ttlSeconds = 0;
  let at = 0;
  const end = message.length;
  while (at < end) {
    const tag = message[at++]!;
    const field = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) {
      const { value, next } = readVarint(message, at, end);
      at = next;
      if (field === 2) id = BigInt.asIntN(64, value).toString();
      else if (field === 3) ttlSeconds = Number(BigInt.asIntN(64, value));
    } else if (wire === 2) {
      const { value, next } = readVarint(message, at, end);
      at = next + Number(value);
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unexpected wire type ${wire} in a LeaseKeepAliveResponse`);
  }
  return { id, ttlSeconds };
}

/** Splits gRPC frames off the front of a byte stream: whole messages out, the partial tail kept. */
export class FrameReader {
  #pending: Buffer = Buffer.alloc(0);

  /** Adds `chunk` and returns every message it completed. */
  push(chunk: Buffer): Buffer[] {
    const buf = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    const messages: Buffer[] = [];
    let at = 0;
    while (buf.length - at >= 5) {
      if (buf[at] !== 0) throw new Error('compressed gRPC message on the keep-alive stream');
      const length = buf.readUInt32BE(at + 1);
      if (buf.length - at - 5 < length) break;
      messages.push(buf.subarray(at + 5, at + 5 + length));
      at += 5 + length;
    }
    this.#pending = at === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(at));
    return messages;
  }
}
