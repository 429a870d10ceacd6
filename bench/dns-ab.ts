import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dnsPacket } from '../test/dns/dns-packet.js';
import { requireTool } from '../test/harness/debian-tools.js';
import { type RunningKnot, startKnot } from '../test/harness/knot.js';
import { registerMany } from './lib/agents.js';
import {
  callgrindControl,
  callgrindLauncher,
  instructionsBetween,
  threadInstructions,
} from './lib/callgrind.js';
import { cpuDuring } from './lib/cpu.js';
import { askAll, type MixQuestion, stableZone, wideMix, writeQueryFile } from './lib/dns-mix.js';
import { dnsperf } from './lib/dnsperf.js';
import { gcSince } from './lib/gc-trace.js';
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
 * registry and its responder processes together). BENCH_TRACE_GC=1 runs each registry with
 * `--trace-gc` and prints, after each latency run, the collections each isolate (the main thread's,
 * the responder thread's) made during it: how many, and their longest and total pause.
 *
 * BENCH_CALLGRIND=1: instructions per reply instead of the rounds (valgrind callgrind's Ir, which a
 * loaded machine does not move). Each checkout's registry, and the echo reference, run under valgrind
 * in turn, instrumented only while counted: first the whole mix is asked once uninstrumented (JIT
 * warm-up; it fills the answer cache as the suite's answer check does), then counted windows of the
 * same client (askAll, 20 in flight, 20 s before a retry): `mix`, the whole mix once more (the suite's cache hit rate:
 * the first 10,000 questions of the file are the cached ones); `hits`, its first
 * BENCH_CALLGRIND_WINDOW (8,000) questions (cached); `misses`, its last as many (never cached).
 * Printed per window: instructions per reply of each thread that did 2 % or more of the work, after
 * subtracting that thread's rate over an idle read of BENCH_CALLGRIND_IDLE_MS (10 s, no queries)
 * for the window's length: under valgrind the registry's timers (weight pass, sweeps) run ~50× slower
 * and would otherwise swamp the main thread's figure. The responder thread is the one whose figure
 * moves between `hits` and `misses`.
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
const TRACE_GC = process.env.BENCH_TRACE_GC === '1';
const ZONE = 'agents.internal';
/** Also knot (the first checkout's zone) and a Node UDP echo server: what one Node thread's sockets cost alone. */
const REFERENCES = process.env.BENCH_DNS_REFERENCES !== '0';
/** `dns.responder_processes` values to run each checkout with (0: the key is left out, as for older checkouts). */
const PROCESSES = (process.env.BENCH_DNS_PROCESSES ?? '0').split(',').map(Number);

requireTool('dnsperf');
const CALLGRIND = process.env.BENCH_CALLGRIND === '1';
const CALLGRIND_WINDOW = Number(process.env.BENCH_CALLGRIND_WINDOW ?? 8000);
/** Milliseconds of the idle read whose per-thread rate is subtracted from each callgrind window. */
const IDLE_MS = Number(process.env.BENCH_CALLGRIND_IDLE_MS ?? 10_000);

const roots = process.argv.slice(2).map((root) => resolve(root));
const variants = roots.flatMap((root) => PROCESSES.map((processes) => ({ root, processes })));
if (roots.length === 0) throw new Error('usage: tsx bench/dns-ab.ts <checkout> [<checkout>…]');
if (CALLGRIND) {
  await instructionsPerReply();
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'reach-dns-ab-'));
interface Server {
  name: string;
  port: number;
  /** Every process whose CPU the server's queries cost. */
  pids: () => number[];
  queries: string;
  /** Its `--trace-gc` output (BENCH_TRACE_GC). */
  gcLog?: string;
}
const servers: Server[] = [];
const registries: RegistryProcess[] = [];
let knot: RunningKnot | undefined;
let echo: { port: number; pid: number; stop(): Promise<void> } | undefined;
try {
  for (const [i, { root, processes }] of variants.entries()) {
    const nodeFlags =
      PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(PROFILE_DIR, String(i))}`];
    if (TRACE_GC) nodeFlags.push('--trace-gc');
    const gcLog = TRACE_GC ? join(dir, `gc-${i}.log`) : undefined;
    const registry = await startRegistryProcess(
      { type: 'embedded' },
      { warmup: 0, heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
      { root, nodeFlags, stdoutFile: gcLog },
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
      gcLog,
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
    for (const { name, port, pids, queries, gcLog } of order) {
      const { result, cpuMs } = await cpuDuring(pids(), () =>
        dnsperf(port, queries, { seconds: SECONDS, mode: MODE }),
      );
      const gcFrom = gcLog === undefined ? 0 : statSync(gcLog).size;
      const serialFrom = gcLog === undefined ? 0 : await soaSerial(port);
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
      if (gcLog !== undefined)
        process.stdout.write(
          `  GC during the latency run: ${gcSince(gcLog, gcFrom)}; zone serial moved by ${(await soaSerial(port)) - serialFrom} (zone changes reached the responder)\n`,
        );
    }
  }
} finally {
  await knot?.stop();
  await echo?.stop();
  for (const registry of registries) await registry.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** Asks `questions` once, 20 in flight, as the counted load of a callgrind window. */
function askWindow(port: number, questions: MixQuestion[]): Promise<Buffer[]> {
  // Valgrind runs the server ~50× slower, and a collection or compilation there can take seconds.
  return askAll(port, questions, 20, 20_000);
}

/** BENCH_CALLGRIND=1: instructions per reply of each checkout's responder and of the echo reference. */
async function instructionsPerReply(): Promise<void> {
  const { createSocket } = await import('node:dgram');
  const cgDir = mkdtempSync(join(tmpdir(), 'reach-dns-cg-'));
  // Wakes a server's event loop for callgrind_control with a datagram too short to answer.
  const poker = createSocket('udp4');
  const pokeUdp = (port: number) => () =>
    new Promise<void>((done) => poker.send(Buffer.from([0]), port, '127.0.0.1', () => setTimeout(done, 2)));
  const count = async (
    name: string,
    pid: number,
    port: number,
    poke: () => Promise<unknown>,
    mix: MixQuestion[],
  ) => {
    const control = async (args: string[]) => threadInstructions(await callgrindControl(pid, args, poke));
    await askWindow(port, mix);
    await control(['-i', 'on']);
    const windows: Array<[string, MixQuestion[]]> = [
      ['mix', mix],
      ['hits', mix.slice(0, CALLGRIND_WINDOW)],
      ['misses', mix.slice(-CALLGRIND_WINDOW)],
    ];
    // Background work (the registry's timers, slowed ~50× under valgrind) per second of wall time, by
    // thread, read with no queries: subtracted from each window, per thread, for its length.
    const idleStart = performance.now();
    const idleBefore = await control(['-e', 'Ir']);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idle = instructionsBetween(idleBefore, await control(['-e', 'Ir']));
    const idleSeconds = (performance.now() - idleStart) / 1000;
    for (const [window, questions] of windows) {
      const started = performance.now();
      const before = await control(['-e', 'Ir']);
      await askWindow(port, questions);
      const delta = instructionsBetween(before, await control(['-e', 'Ir']));
      const seconds = (performance.now() - started) / 1000;
      const per = (ir: number) => Math.round(ir / questions.length).toLocaleString('en-US');
      const threads = [...delta]
        .map(([thread, ir]) => [thread, ir - ((idle.get(thread) ?? 0) * seconds) / idleSeconds] as const)
        .filter(([, ir]) => ir > 0.02 * [...delta.values()].reduce((a, b) => a + b, 0))
        .map(([thread, ir]) => `thread ${thread} ${per(ir)}`);
      const all = [...delta.values()].reduce((a, b) => a + b, 0);
      process.stdout.write(
        `${name} ${window} (${questions.length} replies, ${seconds.toFixed(0)} s): instructions per reply above the idle rate: ${threads.join(', ')}; all threads ${per(all)} before subtracting\n`,
      );
    }
  };
  try {
    let referenceMix: MixQuestion[] | undefined;
    for (const [i, { root, processes }] of variants.entries()) {
      const registry = await startRegistryProcess(
        { type: 'embedded' },
        { warmup: 0, heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
        { root, launcher: callgrindLauncher(join(cgDir, `callgrind.${i}.out`)), startTimeoutMs: 600_000 },
        processes === 0 ? {} : { responder_processes: processes },
      );
      try {
        await registerMany(registry.url, INSTANCES);
        // Not stableZone: under valgrind the weight pass may go on republishing for minutes, and the
        // mix needs only the names (a changed weight drops a few cached answers, counted as they come).
        const mix = wideMix(await (await fetch(`${registry.url}/v1/zone`)).text(), ZONE, INSTANCES);
        referenceMix ??= mix;
        await count(root, registry.pid, registry.dnsPort, () => fetch(`${registry.url}/healthz`), mix);
      } finally {
        await registry.stop();
      }
    }
    // The floor, and the floor with a callback on every send (what that callback costs per reply).
    for (const sendCallback of REFERENCES && referenceMix !== undefined ? [false, true] : []) {
      const file = join(cgDir, `callgrind.echo-${sendCallback}.out`);
      const reference = await startUdpEcho(callgrindLauncher(file), sendCallback);
      try {
        await count(
          sendCallback ? 'node UDP echo, a callback per send' : 'node UDP echo (floor)',
          reference.pid,
          reference.port,
          pokeUdp(reference.port),
          referenceMix!,
        );
      } finally {
        await reference.stop();
      }
    }
  } finally {
    poker.close();
    rmSync(cgDir, { recursive: true, force: true });
  }
}

/** The SOA serial a server answers for the zone now. */
async function soaSerial(port: number): Promise<number> {
  const [reply] = await askAll(port, [{ name: ZONE, type: 'SOA', kind: 'apex SOA' }]);
  const answer = dnsPacket.decode(reply!).answers?.[0] as { data?: { serial?: number } } | undefined;
  return answer?.data?.serial ?? Number.NaN;
}
