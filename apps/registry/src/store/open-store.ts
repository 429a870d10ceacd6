import { readFileSync } from 'node:fs';
import type { ReachConfig } from '@agent-reach/config';
import type { Clock } from '@agent-reach/sdk/clock';
import { ReachError } from '@agent-reach/sdk/protocol';
import { openEmbeddedStore } from './embedded/embedded-store.js';
import { openEtcdStore } from './etcd/etcd-store.js';
import type { EtcdSecurity } from './etcd/etcd-unary.js';
import type { RegistryStore } from './store.js';

/** The config's `storage` section, as parsed (durations already in milliseconds). */
export type StorageSettings = ReachConfig['storage'];

/** What the caller adds to the config when opening a store. */
export interface OpenStoreOptions {
  /** Told about background failures (journal writes, watch errors, lost election sessions). */
  onError?: (error: unknown) => void;
  /** etcd only: the password of `storage.etcd.username` (read from `password_env` by the config). */
  etcdPassword?: string;
  /** Embedded store only. @default systemClock */
  clock?: Clock;
}

/**
 * Opens the store `storage.type` names: `etcd`, or the embedded store (`file` is the seed's name
 * for it). Embedded writes reach the journal at the end of their event-loop turn; `sync_interval` is how
 * often they are fsynced, unless `fsync_before_ack` fsyncs them before they are acknowledged.
 */
export function openStore(storage: StorageSettings, options: OpenStoreOptions = {}): Promise<RegistryStore> {
  const onError = options.onError === undefined ? {} : { onError: options.onError };
  switch (storage.type) {
    case 'etcd':
      return openEtcdStore({
        endpoints: storage.etcd.endpoints,
        prefix: storage.etcd.prefix,
        electionTtlSeconds: storage.etcd.election_ttl / 1000,
        security: etcdSecurity(storage.etcd, options.etcdPassword),
        ...onError,
      });
    case 'embedded':
    case 'file':
      return openEmbeddedStore({
        path: storage.path,
        syncIntervalMs: storage.sync_interval,
        fsyncBeforeAck: storage.fsync_before_ack,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...onError,
      });
  }
}

function readPem(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (cause) {
    throw new ReachError('INVALID_CONFIG', `invalid config: ${key}: cannot read ${path}`, {
      data: { key },
      cause,
    });
  }
}

/** The TLS files and user of `storage.etcd`, read now so a missing file stops the start with its key. */
export function etcdSecurity(etcd: StorageSettings['etcd'], password: string | undefined): EtcdSecurity {
  const security: EtcdSecurity = {};
  if (etcd.tls !== undefined) {
    const key = 'storage.etcd.tls';
    security.tls = {
      ca: readPem(`${key}.ca_file`, etcd.tls.ca_file),
      ...(etcd.tls.cert_file === undefined ? {} : { cert: readPem(`${key}.cert_file`, etcd.tls.cert_file) }),
      ...(etcd.tls.key_file === undefined ? {} : { key: readPem(`${key}.key_file`, etcd.tls.key_file) }),
    };
  }
  if (etcd.username !== undefined) {
    if (password === undefined)
      throw new ReachError('INVALID_CONFIG', 'invalid config: storage.etcd.password_env: not set', {
        data: { key: 'storage.etcd.password_env' },
      });
    security.auth = { username: etcd.username, password };
  }
  return security;
}
