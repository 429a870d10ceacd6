import { isReachError, ReachError } from '@agent-reach/sdk/protocol';
import { EtcdLeaseInvalidError } from 'etcd3';

/** True when etcd refused an operation because a lease named in it does not exist. */
export function isLeaseNotFound(error: unknown): boolean {
  return error instanceof EtcdLeaseInvalidError || /requested lease not found/i.test(String(error));
}

/** Turns a failed etcd call into STORE_UNAVAILABLE (a ReachError passes through unchanged). */
export function toStoreError(error: unknown, what: string): ReachError {
  if (isReachError(error)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new ReachError('STORE_UNAVAILABLE', `etcd ${what} failed: ${detail}`, { cause: error });
}

/** The error for any call on a closed store. */
export const closedError = () => new ReachError('STORE_UNAVAILABLE', 'the etcd registry store is closed');
