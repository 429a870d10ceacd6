/** etcd's int64 lease ids as canonical decimal strings; anything else cannot be a lease. */
const LEASE_ID = /^[1-9]\d{0,18}$/;
const INT64_MAX = 9_223_372_036_854_775_807n;

/** True when `id` is a well-formed, non-zero etcd lease id. */
export function isEtcdLeaseId(id: unknown): id is string {
  return typeof id === 'string' && LEASE_ID.test(id) && BigInt(id) <= INT64_MAX;
}

/** The first key after every key that starts with `prefix` (etcd's `range_end` for a prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff (or the prefix is empty): the range runs to the end of the keyspace.
  return Buffer.from([0]);
}
