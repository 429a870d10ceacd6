/** The registry store on etcd. */
export { EtcdStore, type EtcdStoreOptions, KEEPALIVE_STREAMS, openEtcdStore } from './etcd-store.js';
export { EtcdCallError, EtcdUnaryClient, GRPC_STATUS, type TxnOp } from './etcd-unary.js';
export { KeepAliveStream, type KeepAliveStreamOptions } from './keepalive-stream.js';
