import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 8192;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/** `size` cryptographically random bytes, cut from a pool refilled 8 KiB at a time (one syscall per many ids). */
export function randomBytesPooled(size: number): Buffer {
  if (size > POOL_BYTES) return randomFillSync(Buffer.alloc(size));
  if (offset + size > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  // A copy, so a later refill never changes bytes already handed out.
  const out = Buffer.from(pool.subarray(offset, offset + size));
  offset += size;
  return out;
}
