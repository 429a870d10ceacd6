import type { ReachConfig } from '@agent-reach/config';
import type { Clock } from './embedded/clock.js';
import { openEmbeddedStore } from './embedded/embedded-store.js';
import { openEtcdStore } from './etcd/etcd-store.js';
import type { RegistryStore } from './store.js';

/** The config's `storage` section, as parsed (durations already in milliseconds). */
export type StorageSettings = ReachConfig['storage'];

/** What the caller adds to the config when opening a store. */
export interface OpenStoreOptions {
  /** Told about background failures (journal writes, watch errors, lost election sessions). */
  onError?: (error: unknown) => void;
  /** Embedded store only. @default systemClock */
  clock?: Clock;
}

/**
 * Opens the store `storage.type` names: `etcd`, or the embedded store (`file` is the seed's name
 * for it). Writes reach the journal within 100 ms; `sync_interval` is how often they are fsynced.
 */
export function openStore(storage: StorageSettings, options: OpenStoreOptions = {}): Promise<RegistryStore> {
  const onError = options.onError === undefined ? {} : { onError: options.onError };
  switch (storage.type) {
    case 'etcd':
      return openEtcdStore({ endpoints: storage.etcd.endpoints, prefix: storage.etcd.prefix, ...onError });
    case 'embedded':
    case 'file':
      return openEmbeddedStore({
        path: storage.path,
        syncIntervalMs: storage.sync_interval,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...onError,
      });
  }
}
