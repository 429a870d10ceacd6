/** Agent Reach registry, as other packages start it: the server, its DNS responder, config, logger and store. */
export { registryConfigFrom } from './config.js';
export {
  type DnsResponder,
  type DnsResponderThread,
  handleMessage,
  RRTYPE,
  startRegistryDns,
  Zone,
  ZoneReplica,
} from './dns/index.js';
export { SharedParts } from './instances/shared-parts.js';
export { registryLogger } from './logger.js';
export { type RunningRegistry, startRegistry } from './serve.js';
export { nameServerEntry, skydnsEntries, skydnsName, skydnsPath } from './skydns/index.js';
export {
  EtcdCallError,
  EtcdUnaryClient,
  GRPC_STATUS,
  KEEPALIVE_STREAMS,
  KeepAliveStream,
  openEmbeddedStore,
  openEtcdStore,
  type RegistryStore,
  type TxnOp,
} from './store/index.js';
