import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { requireTool } from '../test/harness/debian-tools.js';
import { type RunningKnot, startKnot } from '../test/harness/knot.js';
import { registerMany } from './lib/agents.js';
import { cpuDuring } from './lib/cpu.js';
import { stableZone, wideMix, writeQueryFile } from './lib/dns-mix.js';
import { dnsperf } from './lib/dnsperf.js';
import { type RegistryProcess, rssMbOf, startRegistryProcess } from './lib/registry-process.js';
import { startUdpEcho } from './lib/udp-echo.js';

/**
 * A/B of the DNS responder on the wide mix (the dns suite's fleet and query file, without knot):
 * `tsx bench/dns-ab.ts <checkout> [<checkout>…]` starts one registry per checkout (a worktree of an
 * older commit is the "before"), each with BENCH_DNS_INSTANCES instances, then alternates dnsperf
 * runs over them. Each run reports queries/s and the registry's CPU microseconds per answered query
 * (from /proc, so a loaded machine moves it less than q/s). BENCH_CPU_PROF=<dir> writes a
 * `--cpu-prof` profile of each registry into <dir> when it stops. References, measured in the same
 * rounds: knot on the first checkout's zone, and a Node UDP echo server (the floor of one Node
 * thread's socket cost, no DNS work); BENCH_DNS_REFERENCES=0 leaves them out. BENCH_DNS_PROCESSES=0,1,2
 * starts each checkout once per `dns.responder_processes` value (CPU per query then counts the
 * registry and its responder processes together).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Seconds of an untimed run against each server before the rounds. */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const INSTANCES = Number(process.env.BENCH_DNS_INSTANCES ?? 10_000);
/** Seconds of each latency run: the leader's weight pass runs every 5 s, so 5 s or more sees one. */
const LATENCY_SECONDS = Number(process.env.BENCH_LATENCY_SECONDS ?? SECONDS);
const LATENCY_QPS = Number(process.env.BENCH_DNS_LATENCY_QPS ?? 2000);
const MODE = (process.env.BENCH_DNS_MODE ?? 'udp') as 'udp' | 'tcp';
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const ZONE = 'agents.internal';
/** Also knot (the first checkout's zone) and a Node UDP echo server: what one Node thread's sockets cost alone. */
const REFERENCES = process.env.BENCH_DNS_REFERENCES !== '0';
/** `dns.responder_processes` values to run each checkout with (0: the key is left out, as for older checkouts). */
const PROCESSES = (process.env.BENCH_DNS_PROCESSES ?? '0').split(',').map(Number);

requireTool('dnsperf');
const roots = process.argv.slice(2).map((root) => resolve(root));
const variants = roots.flatMap((root) => PROCESSES.map((processes) => ({ root, processes })));
if (roots.length === 0) throw new Error('usage: tsx bench/dns-ab.ts <checkout> [<checkout>…]');
const dir = mkdtempSync(join(tmpdir(), 'reach-dns-ab-'));
interface Server {
  name: string;
  port: number;
  /** Every process whose CPU the server's queries cost. */
  pids: () => number[];
  queries: string;
}
const servers: Server[] = [];
const registries: RegistryProcess[] = [];
let knot: RunningKnot | undefined;
let echo: { port: number; pid: number; stop(): Promise<void> } | undefined;
try {
  for (const [i, { root, processes }] of variants.entries()) {
    const nodeFlags =
      PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR, String(i))}`];
    const registry = await startRegistryProcess(
      { type: 'embedded' },
      { warmup: 0, heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
      { root, nodeFlags },
      processes === 0 ? {} : { responder_processes: processes },
    );
    registries.push(registry);
    await registerMany(registry.url, INSTANCES);
    const zoneText = await stableZone(registry.url);
    const mix = wideMix(zoneText, ZONE, INSTANCES);
    const queries = writeQueryFile(join(dir, `queries-${i}.txt`), mix);
    const name = processes === 0 ? root : `${root} (responder_processes ${processes})`;
    servers.push({
      name,
      port: registry.dnsPort,
      pids: () => [registry.pid, ...registry.childPids()],
      queries,
    });
    const children = registry.responderPids().map((pid) => `${rssMbOf(pid).toFixed(0)} MB`);
    process.stdout.write(
      `${name}: ${INSTANCES} instances, ${mix.length} questions; RSS registry ${registry.rssMb().toFixed(0)} MB${children.length > 0 ? `, responder processes ${children.join(' + ')}` : ''}\n`,
    );
    if (i === 0 && REFERENCES) {
      knot = await startKnot(ZONE, zoneText);
      servers.push({ name: 'knot (first zone)', port: knot.port, pids: () => [knot!.pid], queries });
      echo = await startUdpEcho();
      servers.push({ name: 'node UDP echo (floor)', port: echo.port, pids: () => [echo!.pid], queries });
    }
  }
  // Untimed first: the first server of round one would otherwise pay its JIT warm-up in the figures.
  for (const { port, queries } of servers)
    await dnsperf(port, queries, { seconds: WARMUP_SECONDS, mode: MODE });
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse();
    for (const { name, port, pids, queries } of order) {
      const { result, cpuMs } = await cpuDuring(pids(), () =>
        dnsperf(port, queries, { seconds: SECONDS, mode: MODE }),
      );
      const latency = await dnsperf(port, queries, {
        seconds: LATENCY_SECONDS,
        mode: MODE,
        clients: 1,
        outstanding: 20,
        maxQps: LATENCY_QPS,
        perQuery: true,
      });
      const us = (cpuMs * 1000) / Math.max(1, result.completed);
      process.stdout.write(
        `${name} ${MODE}: ${Math.round(result.qps)} q/s, ${us.toFixed(1)} µs CPU/query, avg ${result.avgResponseBytes} B, lost ${result.lost}, ${JSON.stringify(result.rcodes)}; at ${LATENCY_QPS} q/s p50 ${latency.latency!.p50.toFixed(2)} ms p99 ${latency.latency!.p99.toFixed(2)} ms\n`,
      );
    }
  }
} finally {
  await knot?.stop();
  await echo?.stop();
  for (const registry of registries) await registry.stop();
  rmSync(dir, { recursive: true, force: true });
}
