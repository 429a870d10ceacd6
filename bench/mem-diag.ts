/**
 * Diagnosis, not a suite: `npx tsx bench/mem-diag.ts` starts a registry process (embedded store, the
 * churn suite's config) with `lib/gc-probe.mjs` preloaded, and prints its RSS and heap before and after
 * full GCs at each stage: started, filled with DIAG_COUNT (100,000) instances, 10 s after `GET /v1/zone`,
 * after 3 s of the wide DNS mix, after a churn run as the churn suite's (DIAG_SECONDS, 5), and after
 * DIAG_IDLE_MS of idling. DIAG_ONLY_FILL=1 stops after the fill; DIAG_ROOT measures another checkout;
 * DIAG_FLAGS adds node flags; DIAG_NO_GC=1 reads only RSS at each stage, forcing no GC (as the churn
 * suite, whose RSS figure follows the heap limits each collection sets). The responder thread's heap
 * shows in RSS and anonymous memory only.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerMany } from './lib/agents.js';
import { startChurnLoad } from './lib/churn-load.js';
import { wideMix, writeQueryFile } from './lib/dns-mix.js';
import { dnsperf } from './lib/dnsperf.js';
import { startRegistryProcess } from './lib/registry-process.js';

const COUNT = Number(process.env.DIAG_COUNT ?? 100_000);
const out = join(mkdtempSync(join(tmpdir(), 'memdiag-')), 'stats.jsonl');
process.env.MEMDIAG_OUT = out;
writeFileSync(out, '');
const flags = [
  '--expose-gc',
  '--import',
  join(import.meta.dirname, 'lib/gc-probe.mjs'),
  ...(process.env.DIAG_FLAGS ?? '').split(' ').filter(Boolean),
];
const registry = await startRegistryProcess(
  { type: 'embedded' },
  { heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
  { nodeFlags: flags, ...(process.env.DIAG_ROOT ? { root: process.env.DIAG_ROOT } : {}) },
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function stage(label: string) {
  if (process.env.DIAG_NO_GC === '1') {
    console.log(label, JSON.stringify({ rss: Number(registry.rssMb().toFixed(1)) }));
    return;
  }
  const lines = () => readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
  const n = lines();
  process.kill(registry.pid, 'SIGUSR2');
  while (lines() === n) await sleep(100);
  const { before, after } = JSON.parse(readFileSync(out, 'utf8').split('\n').filter(Boolean).at(-1)!);
  console.log(label, JSON.stringify({ rssBefore: before.rss, heapBefore: before.heapUsed, ...after }));
}
try {
  await stage('start');
  const t0 = performance.now();
  const fleet = await registerMany(registry.url, COUNT);
  console.log('fill s', ((performance.now() - t0) / 1000).toFixed(1));
  await sleep(2000);
  await stage('fill');
  if (process.env.DIAG_ONLY_FILL === '1') {
    await registry.stop();
    process.exit(0);
  }
  const zoneText = await (await fetch(`${registry.url}/v1/zone`)).text();
  console.log('zone text MB', (zoneText.length / 1048576).toFixed(1));
  await sleep(10_000);
  await stage('export');
  const dir = mkdtempSync(join(tmpdir(), 'memdiag-q-'));
  const queries = writeQueryFile(join(dir, 'q.txt'), wideMix(zoneText, 'agents.internal', COUNT));
  await dnsperf(registry.dnsPort, queries, {
    mode: 'udp',
    clients: 1,
    outstanding: 20,
    maxQps: 2000,
    perQuery: true,
    seconds: 3,
  });
  await stage('dns3s');
  const half = Math.floor(fleet.length / 2);
  const load = await startChurnLoad(
    {
      url: registry.url,
      seconds: Number(process.env.DIAG_SECONDS ?? 5),
      rates: { register: 1000, deregister: 200, heartbeat: 2000 },
      firstBody: COUNT + 1_000_000,
      lagEvery: 20,
      deregister: fleet.slice(0, half),
      beating: fleet.slice(half),
      firstSeq: 1,
    },
    join(dir, 'load.json'),
  );
  const [, http] = await Promise.all([
    dnsperf(registry.dnsPort, queries, {
      mode: 'udp',
      clients: 1,
      outstanding: 20,
      maxQps: 2000,
      perQuery: true,
      seconds: Number(process.env.DIAG_SECONDS ?? 5),
    }),
    load.run(() => {}),
  ]);
  await load.stop();
  console.log(
    'churn ok reg',
    http.registrations.ok,
    'dereg',
    http.deregistrations.ok,
    'hb',
    http.heartbeats.ok,
  );
  console.log('rss right after churn (as the bench reads it)', registry.rssMb().toFixed(0));
  await stage('churn');
  await sleep(Number(process.env.DIAG_IDLE_MS ?? 0));
  if (process.env.DIAG_IDLE_MS) await stage('idle');
} finally {
  await registry.stop();
}
