export { nameServerSkydnsEntry } from './name-server.js';
export {
  DEFAULT_SRV_PRIORITY,
  GENERIC_SERVICE,
  nameServerEntry,
  type SkydnsEntry,
  type SkydnsService,
  type SrvWeights,
  skydnsEntries,
  srvEntries,
} from './skydns-entries.js';
export { skydnsName, skydnsPath } from './skydns-path.js';
export { removeSkydnsProjection } from './stale-projection.js';
