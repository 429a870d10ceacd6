import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { heartbeatLua, registerLua, registerMany } from './lib/agents.js';
import {
  callgrindControl,
  callgrindLauncher,
  instructionsBetween,
  threadInstructions,
} from './lib/callgrind.js';
import { cpuDuring } from './lib/cpu.js';
import {
  formatSummary,
  monotonicUs,
  readProfileDir,
  summariseProfile,
  type Window,
} from './lib/cpuprofile.js';
import { type GcTotals, gcTotalsSince } from './lib/gc-trace.js';
import { spawnReady } from './lib/ready-child.js';
import { type RegistryProcess, startRegistryProcess } from './lib/registry-process.js';
import { wrk } from './lib/wrk.js';

/**
 * A/B of registrations across checkouts: `tsx bench/register-ab.ts <checkout> [<checkout>…]` starts
 * one registry per checkout (embedded store, as the registry suite starts it), fills each with
 * BENCH_REGISTER_INSTANCES instances, runs one unrecorded wrk warm-up of registrations on each (so
 * the 50 declarations wrk sends are known and the JIT is warm), then alternates wrk runs of
 * registrations (32 connections, `registerLua()`, BENCH_SECONDS each, BENCH_ROUNDS rounds, the order
 * flipped every round). Each run reports registrations/s and the registry's CPU microseconds per
 * registration (user + system from /proc, so a loaded machine moves it less than requests/s).
 * Reference in the same rounds: a node:http hello-world in its own process, CPU per request.
 * BENCH_REGISTER_INSTANCES may list several fleet sizes (`10000,100000`): each checkout then runs one
 * registry per size, all in the same rounds, so CPU per registration at 100,000 is read against 10,000.
 * BENCH_CPU_PROF=<dir> writes a `--cpu-prof` profile of each registry into <dir>/<index> when it stops,
 * and prints each profile's summary over the timed wrk runs only (not the start, fill or warm-up).
 * After each fill the registry's CPU is read for BENCH_IDLE_SECONDS (5) with no load: the background
 * work that grows with the fleet (the leader's weight passes, collections).
 * BENCH_AB_OP=heartbeat times heartbeats of the filled instances instead (`heartbeatLua()`, round-robin,
 * each run's seqs above the last's), with no warm-up registrations: CPU per heartbeat at each size.
 * Leases are 900 s and the heartbeat interval 400 s (the registry suite's), so several large fills in
 * one run expire none and leave none suspect.
 * BENCH_TRACE_GC=1 runs each registry with `--trace-gc-nvp` and prints, per target, the main isolate's
 * collections over its timed runs per operation: scavenges, pause µs and bytes promoted to the old
 * generation (what an operation allocated that outlived two scavenges).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SIZES = (process.env.BENCH_REGISTER_INSTANCES ?? '1000').split(',').map(Number);
const INSTANCES = SIZES[0]!;
/** Seconds the registry's CPU is read with no load after the fill (0: not read). */
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 5);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** Registrations counted under callgrind (0: the wrk rounds instead). */
const CALLGRIND = Number(process.env.BENCH_CALLGRIND ?? 0);
const OP = process.env.BENCH_AB_OP ?? 'register';
const TRACE_GC = process.env.BENCH_TRACE_GC === '1';
/**
 * BENCH_AB_WARMUP=<seconds>: routing's warm-up ramp (default 300). A long one (3600: DNS's first
 * warm-up step 400 s after registration) keeps the leader's weight pass from writing while the timed
 * runs go on: at 100,000 instances filled a minute before, the default ramp has it write ~1,000
 * weights every 5 s, whose garbage the GC figures per request would count as the operation's.
 */
const WARMUP = process.env.BENCH_AB_WARMUP === undefined ? undefined : Number(process.env.BENCH_AB_WARMUP);
if (OP !== 'register' && OP !== 'heartbeat') throw new Error(`BENCH_AB_OP: register or heartbeat, not ${OP}`);
/** Seqs of one heartbeat run start above the last run's (no instance beats this often in one run). */
const SEQS_PER_RUN = 10_000_000;

const roots = process.argv.slice(2).map((root) => resolve(root));
if (roots.length === 0) throw new Error('usage: tsx bench/register-ab.ts <checkout> [<checkout>…]');
if (CALLGRIND > 0) {
  await instructionsPerRegistration();
  process.exit(0);
}

interface Target {
  name: string;
  url: string;
  pid: number;
  /** The wrk script of run `run` (none: plain GETs). */
  lua?: (run: number) => string;
  cpuUs: number[];
  rps: number[];
  /** The timed runs, on the clock of `--cpu-prof`. */
  windows: Window[];
  requests: number;
  /** The idle read after the fill. */
  idleWindow?: Window;
  profileDir?: string;
  /** Its `--trace-gc-nvp` log (BENCH_TRACE_GC) and the main isolate's collections over the timed runs. */
  gcLog?: string;
  gc: GcTotals;
}
const registries: RegistryProcess[] = [];
const targets: Target[] = [];
const gcDir = TRACE_GC ? mkdtempSync(join(tmpdir(), 'reach-register-ab-gc-')) : undefined;
const noGc = (): GcTotals => ({ scavenges: 0, markCompacts: 0, pauseMs: 0, promoted: 0, survived: 0 });
const hello = await spawnReady<{ url: string }>(resolve(import.meta.dirname, 'lib/hello-main.ts'), {});
try {
  for (const [r, root] of roots.entries()) {
    for (const [s, size] of SIZES.entries()) {
      const i = r * SIZES.length + s;
      const profileDir = PROFILE_DIR === undefined ? undefined : resolve(PROFILE_DIR, String(i));
      const nodeFlags = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
      if (TRACE_GC) nodeFlags.push('--trace-gc-nvp');
      const gcLog = gcDir === undefined ? undefined : join(gcDir, `gc-${i}.log`);
      // Leases of 900 s and a 400 s heartbeat interval, as in the registry suite: with several
      // 100,000 fills in one run, the first fleet's leases would otherwise expire, or its instances
      // turn suspect (each heartbeat then a tier change the leader writes), before they are timed.
      const registry = await startRegistryProcess(
        { type: 'embedded' },
        {
          heartbeat_interval: '400s',
          heartbeat_timeout: '900s',
          ...(WARMUP === undefined ? {} : { warmup: WARMUP }),
        },
        { root, nodeFlags, ...(gcLog === undefined ? {} : { stdoutFile: gcLog }) },
      );
      registries.push(registry);
      const fleet = await registerMany(registry.url, size);
      const lua =
        OP === 'heartbeat'
          ? (run: number) => heartbeatLua(fleet, (run + 1) * SEQS_PER_RUN)
          : () => registerLua();
      const warm = await wrk(`${registry.url}${OP === 'heartbeat' ? '' : '/v1/agents'}`, {
        seconds: 1,
        lua: lua(-1),
      });
      if (warm.non2xx > 0) throw new Error(`${root}: ${warm.non2xx} warm-up requests were refused`);
      const name = SIZES.length === 1 ? root : `${root} at ${size}`;
      // Background work that grows with the fleet (weight passes, collections) runs with no load too.
      const idleFrom = monotonicUs();
      const idle = await cpuDuring(
        [registry.pid],
        () => new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000)),
      );
      targets.push({
        name,
        url: OP === 'heartbeat' ? registry.url : `${registry.url}/v1/agents`,
        pid: registry.pid,
        lua,
        cpuUs: [],
        rps: [],
        windows: [],
        requests: 0,
        idleWindow: { fromUs: idleFrom, toUs: monotonicUs() },
        ...(profileDir === undefined ? {} : { profileDir }),
        ...(gcLog === undefined ? {} : { gcLog }),
        gc: noGc(),
      });
      process.stdout.write(
        `${name}: ${size} instances + ${warm.requests} warm-up ${OP === 'heartbeat' ? 'heartbeats' : 'registrations'}${IDLE_SECONDS > 0 ? `; idle after them: ${(idle.cpuMs / IDLE_SECONDS).toFixed(0)} ms CPU/s over ${IDLE_SECONDS} s` : ''}\n`,
      );
    }
  }
  targets.push({
    name: 'node:http hello-world (own process)',
    url: hello.ready.url,
    pid: hello.pid,
    cpuUs: [],
    rps: [],
    windows: [],
    requests: 0,
    gc: noGc(),
  });
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) {
      const lua = target.lua?.(round);
      const fromUs = monotonicUs();
      const gcFrom = target.gcLog === undefined ? 0 : statSync(target.gcLog).size;
      const { result, cpuMs: used } = await cpuDuring([target.pid], () =>
        wrk(target.url, { seconds: SECONDS, ...(lua === undefined ? {} : { lua }) }),
      );
      target.windows.push({ fromUs, toUs: monotonicUs() });
      target.requests += result.requests;
      if (target.gcLog !== undefined) {
        const gc = gcTotalsSince(target.gcLog, gcFrom);
        for (const key of Object.keys(gc) as (keyof GcTotals)[]) target.gc[key] += gc[key];
      }
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} socket errors`);
      const us = (used * 1000) / Math.max(1, result.requests);
      target.cpuUs.push(us);
      target.rps.push(result.requestsPerSec);
      process.stdout.write(
        `round ${round + 1} ${target.name}: ${Math.round(result.requestsPerSec)} req/s, ${us.toFixed(1)} µs CPU/request (${result.requests} requests)\n`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  process.stdout.write(
    '\n| checkout | CPU µs per request (median; each run) | req/s (median) |\n|---|---|---|\n',
  );
  for (const t of targets) {
    process.stdout.write(
      `| ${t.name} | ${median(t.cpuUs).toFixed(1)} (${t.cpuUs.map((x) => x.toFixed(1)).join(' / ')}) | ${Math.round(median(t.rps))} |\n`,
    );
  }
  if (TRACE_GC) {
    process.stdout.write(
      '\n| checkout | main isolate over the timed runs: scavenges per 1,000 requests | mark-compacts | GC pause µs per request | bytes promoted per request | bytes survived (young) per request |\n|---|---|---|---|---|---|\n',
    );
    for (const t of targets) {
      if (t.gcLog === undefined) continue;
      const per = (x: number) => x / Math.max(1, t.requests);
      process.stdout.write(
        `| ${t.name} | ${(per(t.gc.scavenges) * 1000).toFixed(2)} | ${t.gc.markCompacts} | ${(per(t.gc.pauseMs) * 1000).toFixed(2)} | ${per(t.gc.promoted).toFixed(1)} | ${per(t.gc.survived).toFixed(1)} |\n`,
      );
    }
  }
} finally {
  for (const registry of registries) await registry.stop();
  await hello.stop();
  if (gcDir !== undefined) rmSync(gcDir, { recursive: true, force: true });
}
for (const target of targets) {
  if (target.profileDir === undefined) continue;
  const summary = summariseProfile(readProfileDir(target.profileDir), target.windows);
  process.stdout.write(
    `\n## ${target.name}: profile over the timed runs\n${formatSummary(summary, target.requests)}\n`,
  );
  if (target.idleWindow === undefined || IDLE_SECONDS === 0) continue;
  const idle = summariseProfile(readProfileDir(target.profileDir), [target.idleWindow]);
  process.stdout.write(
    `\n## ${target.name}: main thread over the idle read, per second\n${formatSummary(idle, IDLE_SECONDS, 12)}\n`,
  );
}

/**
 * BENCH_CALLGRIND=<n>: instructions (valgrind callgrind's Ir, every thread of the registry) per
 * registration over <n> registrations of new instances, after the fill and a warm-up of 500, each
 * checkout in turn. Instrumentation is off until the counted registrations (node starts ~10× slower
 * under valgrind even so) and on only for them; instruction counts do not move with machine load.
 */
async function instructionsPerRegistration(): Promise<void> {
  // BENCH_CALLGRIND_OUT=<dir>: the callgrind.<i>.out files are kept there (for callgrind_annotate).
  const keep = process.env.BENCH_CALLGRIND_OUT;
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'reach-register-cg-'));
  try {
    for (const [i, root] of roots.entries()) {
      const registry = await startRegistryProcess(
        { type: 'embedded' },
        {},
        {
          root,
          launcher: callgrindLauncher(join(dir, `callgrind.${i}.out`)),
          startTimeoutMs: 600_000,
        },
      );
      const control = async (args: string[]) =>
        threadInstructions(
          await callgrindControl(registry.pid, args, () => fetch(`${registry.url}/healthz`)),
        );
      try {
        await registerMany(registry.url, INSTANCES);
        await registerMany(registry.url, 500);
        await control(['-i', 'on']);
        const before = await control(['-e', 'Ir']);
        await registerMany(registry.url, CALLGRIND);
        const after = await control(['-e', 'Ir']);
        const delta = instructionsBetween(before, after);
        const all = [...delta.values()].reduce((a, b) => a + b, 0);
        const per = (ir: number) => Math.round(ir / CALLGRIND);
        process.stdout.write(
          `${root}: ${per(delta.get(1) ?? 0)} instructions per registration on the main thread, ${per(all)} in all threads (${CALLGRIND} registrations)\n`,
        );
      } finally {
        await registry.stop();
      }
    }
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}
