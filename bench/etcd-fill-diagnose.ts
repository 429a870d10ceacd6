// Diagnostic, not a suite (`npx tsx bench/etcd-fill-diagnose.ts`, under the bench lock): fills a registry
// on a fresh etcd with N (100,000) instances, printing etcd's metrics and both processes' CPU every
// 10,000, then times HB_ROUNDS wrk heartbeat runs of HB_SECONDS. etcd logs at info level to
// /tmp/etcd100k-etcd-*.log (slow applies, range traces, revocations). ETCD_EXTRA adds etcd flags
// ("--enable-pprof" also saves a CPU profile at PROF_AT instances, a heap profile after the fill and a
// goroutine dump during the heartbeats); HB_TIMEOUT sets the lease TTL (e.g. 900s), HB_INTERVAL the heartbeat interval (the
// registry suite's 400s: none turns suspect during the fill; the default 60s makes most of a 100,000 fleet
// suspect by the end of it); REG_FLAGS node flags; RAW_KA=1 times raw keep-alives of the instances' own
// leases on the same etcd right before the heartbeats (over each of STREAMS, e.g. 4,16); LOCK=hb takes the bench lock
// only for the timed part (start the script itself with nice -n 10).

import { ETCD_SERVER_FLAGS } from '../scripts/cluster/etcd-flags.js';
import { startEtcd } from '../test/harness/etcd.js';
import { heartbeatLua, registerLua, registerMany } from './lib/agents.js';
import { cpuDuring, cpuMs } from './lib/cpu.js';
import { startRegistryProcess } from './lib/registry-process.js';
import { wrk } from './lib/wrk.js';
import { rawEtcd, rawKeepAlives, registrationTemplate } from './registry.bench.js';

/** Holds /work/bench.lock (flock in a child process) until `release`. */
async function benchLock(): Promise<{ release(): void }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(
    'flock',
    ['-w', '1500', '/work/bench.lock', 'sh', '-c', 'echo locked; cat >/dev/null'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`flock ended (${code}) before locking`)));
  });
  console.log('bench lock held');
  return { release: () => child.stdin.end() };
}

const N = Number(process.env.N ?? 100_000);
const STEP = 10_000;
const extra = (process.env.ETCD_EXTRA ?? '').split(' ').filter((s) => s !== '');
const log = `/tmp/etcd100k-etcd-${Date.now()}.log`;
// STORE=embedded: the same fill and heartbeats on the embedded store (the reference), no etcd.
const embedded = process.env.STORE === 'embedded';
const etcd = embedded
  ? undefined
  : await startEtcd({
      extraArgs: [...ETCD_SERVER_FLAGS, '--log-level=info', `--log-outputs=${log}`, ...extra],
    });
console.log('etcd log', log, 'extra', extra);

const WANT = [
  'etcd_server_slow_apply_total',
  'etcd_disk_backend_commit_duration_seconds_sum',
  'etcd_disk_backend_commit_duration_seconds_count',
  'etcd_disk_wal_fsync_duration_seconds_sum',
  'etcd_disk_wal_fsync_duration_seconds_count',
  'etcd_debugging_snap_save_total_duration_seconds_count',
  'etcd_disk_backend_snapshot_duration_seconds_count',
  'etcd_mvcc_db_total_size_in_bytes',
  'process_resident_memory_bytes',
  'go_memstats_heap_inuse_bytes',
  'etcd_server_proposals_pending',
  'etcd_server_proposals_committed_total',
  'etcd_server_proposals_applied_total',
  'etcd_debugging_lease_granted_total',
  'etcd_debugging_lease_revoked_total',
  'etcd_debugging_lease_renewed_total',
  'etcd_server_heartbeat_send_failures_total',
  'etcd_server_slow_read_indexes_total',
  'grpc_server_handled_total{grpc_code="OK",grpc_method="LeaseGrant"',
  'grpc_server_handled_total{grpc_code="OK",grpc_method="Txn"',
  'grpc_server_handled_total{grpc_code="OK",grpc_method="Range"',
];
async function metrics(): Promise<string> {
  if (etcd === undefined) return '';
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const w = WANT.find((p) => line.startsWith(p));
    if (w) out.push(`${w.replace(/\{.*method="/, '{').replace('etcd_', '')}=${line.split(' ').at(-1)}`);
  }
  return out.join(' ');
}

const registry = await startRegistryProcess(
  etcd === undefined ? { type: 'embedded' } : { type: 'etcd', endpoint: etcd.endpoint },
  {
    ...(process.env.HB_TIMEOUT ? { heartbeat_timeout: process.env.HB_TIMEOUT } : {}),
    ...(process.env.HB_INTERVAL ? { heartbeat_interval: process.env.HB_INTERVAL } : {}),
  },
  { nodeFlags: (process.env.REG_FLAGS ?? '').split(' ').filter((s) => s !== '') },
);
const pid = etcd?.pid() ?? registry.pid;
const t0 = performance.now();
const instances: { id: string; token: string }[] = [];
try {
  let c0 = [cpuMs(registry.pid), cpuMs(pid)];
  let tPrev = t0;
  for (let done = 0; done < N; done += STEP) {
    instances.push(...(await registerMany(registry.url, Math.min(STEP, N - done))));
    const now = performance.now();
    const c1 = [cpuMs(registry.pid), cpuMs(pid)];
    console.log(
      `${instances.length} at ${((now - t0) / 1000).toFixed(1)}s (${(STEP / ((now - tPrev) / 1000)).toFixed(0)}/s, cpu reg ${(((c1[0]! - c0[0]!) / (now - tPrev)) * 100).toFixed(0)}% etcd ${(((c1[1]! - c0[1]!) / (now - tPrev)) * 100).toFixed(0)}%) rss reg ${registry.rssMb().toFixed(0)}MB`,
    );
    console.log('   ', await metrics());
    if (
      etcd !== undefined &&
      extra.includes('--enable-pprof') &&
      instances.length === Number(process.env.PROF_AT ?? 50_000)
    ) {
      const file = `${log}.cpu.pb.gz`;
      void fetch(`${etcd.endpoint}/debug/pprof/profile?seconds=20`)
        .then(async (r) => (await import('node:fs')).writeFileSync(file, Buffer.from(await r.arrayBuffer())))
        .then(() => console.log('cpu profile', file));
    }
    c0 = c1;
    tPrev = now;
  }
  const seconds = Number(process.env.HB_SECONDS ?? 4);
  if (etcd !== undefined && extra.includes('--enable-pprof')) {
    const heap = await (await fetch(`${etcd.endpoint}/debug/pprof/heap?debug=1`)).text();
    (await import('node:fs')).writeFileSync(`${log}.heap.txt`, heap);
    setTimeout(async () => {
      const g = await (await fetch(`${etcd.endpoint}/debug/pprof/goroutine?debug=2`)).text();
      (await import('node:fs')).writeFileSync(`${log}.goroutines.txt`, g);
    }, 2000);
  }
  // LOCK=hb: the fill runs outside the bench lock (start the script with nice), the timed rounds inside it.
  const lock = process.env.LOCK === 'hb' ? await benchLock() : undefined;
  if (etcd !== undefined && process.env.RAW_KA === '1') {
    for (const streams of (process.env.STREAMS ?? '4').split(',').map(Number)) {
      const raw = await cpuDuring([pid], () => rawKeepAlives(etcd.endpoint, seconds, streams));
      console.log(
        `raw keep-alives of ${raw.result.leases} leases: ${raw.result.perSec.toFixed(0)}/s over ${streams} streams, etcd cpu ${((raw.cpuMs * 1000) / Math.max(1, raw.result.done)).toFixed(1)} µs each`,
      );
    }
  }
  for (let round = 0; round < Number(process.env.HB_ROUNDS ?? 1); round++) {
    // PROF_AT=hb: etcd's CPU profile over the first heartbeat round instead of during the fill.
    if (
      etcd !== undefined &&
      extra.includes('--enable-pprof') &&
      round === 0 &&
      process.env.PROF_AT === 'hb'
    ) {
      const file = `${log}.hb-cpu.pb.gz`;
      void fetch(`${etcd.endpoint}/debug/pprof/profile?seconds=${seconds}`)
        .then(async (r) => (await import('node:fs')).writeFileSync(file, Buffer.from(await r.arrayBuffer())))
        .then(() => console.log('cpu profile', file));
    }
    const { result, cpuMs: used } = await cpuDuring([registry.pid, pid], () =>
      wrk(registry.url, { seconds, lua: heartbeatLua(instances, round * 1_000_000) }),
    );
    console.log(
      `heartbeats round ${round} at ${((performance.now() - t0) / 1000).toFixed(1)}s: ${result.requestsPerSec} req/s, ${result.requests} req, p50 ${result.p50Ms} p99 ${result.p99Ms} ms, non2xx ${result.non2xx}, errors ${result.errors}, cpu ${used} ms (${((used * 1000) / Math.max(1, result.requests)).toFixed(1)} µs/hb)`,
    );
    console.log('   ', await metrics());
  }
  lock?.release();
  if (etcd !== undefined && process.env.REGS === '1') {
    // As the registry suite: the raw references on etcds of their own right before the registrations.
    const raw = await rawEtcd(await registrationTemplate(etcd.endpoint, instances[0]!.id), instances.length);
    const regs = await wrk(`${registry.url}/v1/agents`, { seconds: 2, lua: registerLua() });
    console.log(
      `registrations from ${instances.length}: ${regs.requestsPerSec} req/s (non2xx ${regs.non2xx}, errors ${regs.errors}); raw grant+txn on an etcd of this size ${raw.grantAndTxnAtSize.toFixed(0)}/s (${((100 * regs.requestsPerSec) / raw.grantAndTxnAtSize).toFixed(0)} %), on a fresh etcd ${raw.grantAndTxn.toFixed(0)}/s (${((100 * regs.requestsPerSec) / raw.grantAndTxn).toFixed(0)} %), txn alone ${raw.txn.toFixed(0)}/s (${((100 * regs.requestsPerSec) / raw.txn).toFixed(0)} %)`,
    );
  }
} finally {
  await registry.stop();
  await etcd?.stop();
}
