/**
 * etcd flags the registry needs beyond etcd's defaults, as deploy/k8s/20-etcd.yaml sets them (keep the
 * two alike): `pnpm start --cluster` and the benches (bench/registry.bench.ts) run etcd with them too.
 *
 * Automatic compaction: etcd keeps every revision of every key until something compacts it, and
 * nothing else does. At 100,000 instances heartbeating every 5 s, a replica's liveness facts alone are
 * ~2.4 MB of new revisions a second (20,000 facts of ~120 bytes), so an uncompacted etcd reaches its
 * 2 GiB quota in about 15 minutes and then refuses every write (alarm NOSPACE). Five minutes of history
 * is far more than a watch needs to resume after a reconnect.
 */
export const ETCD_SERVER_FLAGS = ['--auto-compaction-mode=periodic', '--auto-compaction-retention=5m'];
