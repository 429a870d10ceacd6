/** The registry's storage: the RegistryStore interface, its key layout and records, and its implementations. */
export {
  EmbeddedStore,
  type EmbeddedStoreOptions,
  journalFileFor,
  openEmbeddedStore,
} from './embedded/index.js';
export {
  EtcdCallError,
  EtcdStore,
  type EtcdStoreOptions,
  EtcdUnaryClient,
  GRPC_STATUS,
  KEEPALIVE_STREAMS,
  KeepAliveStream,
  type KeepAliveStreamOptions,
  openEtcdStore,
  type TxnOp,
} from './etcd/index.js';
export { KEYS } from './keys.js';
export { type OpenStoreOptions, openStore, type StorageSettings } from './open-store.js';
export { InstanceRecord } from './records.js';
export type {
  KeyValue,
  Leadership,
  LeaseError,
  LeaseId,
  PutOp,
  RegistryStore,
  Watch,
  WatchEvent,
} from './store.js';
