import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESPONDER_THREAD_NAME } from '../apps/registry/src/dns/responder-worker.js';
import { requireTool } from '../test/harness/debian-tools.js';
import { type RunningKnot, startKnot } from '../test/harness/knot.js';
import { REGISTRATION_RUN_SECONDS, registerLua, registerMany } from './lib/agents.js';
import { type ChurnInstance, type ChurnLoadResult, startChurnLoad } from './lib/churn-load.js';
import { type CpuShares, SETTLED_CPU_MS_PER_S, settle, threadNamed, watchCpu } from './lib/cpu.js';
import { monotonicUs, type Window } from './lib/cpuprofile.js';
import { firstAnswerMs, probeUntilAnswered } from './lib/dns-lag.js';
import { wideMix, writeQueryFile } from './lib/dns-mix.js';
import { type DnsperfResult, dnsperf } from './lib/dnsperf.js';
import { gcSince } from './lib/gc-trace.js';
import { type RegistryProcess, startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';
import { summarize } from './lib/stats.js';
import { wrk } from './lib/wrk.js';

const ZONE = 'agents.internal';
/** Length of the churn run at each fleet size. */
const SECONDS = Number(process.env.BENCH_CHURN_SECONDS ?? 10);
/** Offered rates during the churn run (per second). */
const REGISTER_RATE = Number(process.env.BENCH_CHURN_REGISTER_RATE ?? 1000);
const DEREGISTER_RATE = Number(process.env.BENCH_CHURN_DEREGISTER_RATE ?? 200);
const HEARTBEAT_RATE = Number(process.env.BENCH_CHURN_HEARTBEAT_RATE ?? 2000);
const DNS_QPS = Number(process.env.BENCH_CHURN_DNS_QPS ?? 2000);
/** One registration in this many is followed from its 201 to its first DNS answer. */
const LAG_EVERY = 20;
/** Wait after the setup's zone export, before the references (two weight passes). */
const SETTLE_MS = 10_000;
/** Each follow asks at most one query per this many ms (with many in flight, a tight loop flooded the port). */
const PROBE_INTERVAL_MS = 1;
/** 100,000 instances add several minutes: `BENCH_CHURN_100K=1`. */
/** Node flags of the registry process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p` (space-separated; its stdout is not kept). */
/** Another checkout's registry to measure (a worktree of an older commit, for A/B runs). */
const ROOT = process.env.BENCH_CHURN_ROOT;
/**
 * Fleet sizes up to this get the knot floor window. knot did not load a synthetic 100,000-instance zone
 * (23 MB, RRsets of 100,000 records) within 38 s on this machine (session 13), so it is off there.
 */
const KNOT_UP_TO = Number(process.env.BENCH_CHURN_KNOT_UP_TO ?? 10_000);
const NODE_FLAGS = (process.env.BENCH_CHURN_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
/** With `--cpu-prof-dir=<dir>` in the node flags, the phases' windows go to `<dir>/windows-<count>.json`. */
const PROFILE_DIR = NODE_FLAGS.find((f) => f.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
const COUNTS = process.env.BENCH_CHURN_COUNTS
  ? process.env.BENCH_CHURN_COUNTS.split(',').map(Number)
  : process.env.BENCH_CHURN_100K === '1'
    ? [1000, 10_000, 100_000]
    : [1000, 10_000];

/**
 * Runs the registry with `--trace-gc` and prints, after each fleet size, the collections each isolate
 * (the main thread's, the responder thread's) made during the no-churn DNS window and the churn window:
 * how many, and their longest and total pause (a pause holds every query that arrives meanwhile).
 */
const TRACE_GC = process.env.BENCH_TRACE_GC === '1';
const dnsOptions = { mode: 'udp' as const, clients: 1, outstanding: 20, maxQps: DNS_QPS, perQuery: true };

/** Every answer of the mix is NOERROR or NXDOMAIN; others are counted into the figure, not dropped. */
function dnsErrors(r: DnsperfResult): string {
  const bad = r.completed - (r.rcodes.NOERROR ?? 0) - (r.rcodes.NXDOMAIN ?? 0);
  return `${r.lost} of ${r.sent} lost, ${bad} other rcodes`;
}

/** The responder thread's time on a CPU and waiting for one, when it was found by its name. */
const responderShare = (cpu: CpuShares): string => {
  const thread = cpu.threads[0];
  return thread === undefined
    ? ''
    : `; its responder thread ran ${thread.run.toFixed(0)} % and waited for a CPU ${thread.wait.toFixed(0)} %`;
};

/** What one churn window measured. */
interface ChurnWindow {
  dns: DnsperfResult;
  http: ChurnLoadResult;
  lags: number[];
  lagMissed: number;
  probeQueries: number;
  cpu: CpuShares;
  registryCpu: number;
  loadCpu: number;
  /** CPU of the reference DNS server (knot), when dnsperf asked it. */
  knotCpu: number | undefined;
  others: number;
}

/**
 * One churn window: the paced HTTP load (a process of its own) against the registry, the lag probes
 * against the registry's responder, and dnsperf against `dnsPort`: the registry's responder, or knot
 * serving the same zone file for the same-run reference (the same load on the machine, another server
 * answering dnsperf).
 */
async function churnWindow(
  registry: RegistryProcess,
  dnsPort: number,
  queries: string,
  load: {
    firstBody: number;
    deregister: ChurnInstance[];
    beating: ChurnInstance[];
    firstSeq: number;
    specFile: string;
  },
  knot: RunningKnot | undefined,
): Promise<ChurnWindow> {
  // The paced HTTP load runs in a process of its own (raw HTTP/1.1 on kept-alive sockets, requests
  // encoded before the run); this process only follows registrations in DNS, so neither starves the other.
  const { specFile, ...instances } = load;
  const http = await startChurnLoad(
    {
      url: registry.url,
      seconds: SECONDS,
      rates: { register: REGISTER_RATE, deregister: DEREGISTER_RATE, heartbeat: HEARTBEAT_RATE },
      lagEvery: LAG_EVERY,
      ...instances,
    },
    specFile,
  );
  const lags: number[] = [];
  let lagMissed = 0;
  let probeQueries = 0;
  const lagProbes: Promise<void>[] = [];
  const responderThread = threadNamed(registry.pid, RESPONDER_THREAD_NAME);
  const pids = knot === undefined ? [registry.pid, http.pid] : [registry.pid, http.pid, knot.pid];
  const cpuSpan = watchCpu(
    pids,
    responderThread === undefined ? [] : [{ pid: registry.pid, tid: responderThread }],
  );
  const [dns, loadResult] = await Promise.all([
    dnsperf(dnsPort, queries, { ...dnsOptions, seconds: SECONDS }),
    http.run((id, at) => {
      lagProbes.push(
        probeUntilAnswered(registry.dnsPort, `${id}.${ZONE}`, { intervalMs: PROBE_INTERVAL_MS }).then(
          ({ answeredAt, queries: sent }) => {
            probeQueries += sent;
            if (answeredAt === null) lagMissed++;
            // The probe starts once the 201's time arrived, so its answer cannot come before it:
            // a negative lag says the two processes' clocks disagree, and no figure is made of it.
            else if (answeredAt < at)
              throw new Error(`lag probe of ${id}: answer ${at - answeredAt} ms before its 201`);
            else lags.push(answeredAt - at);
          },
        ),
      );
    }),
  ]);
  // dnsperf has exited by now (counted as an exited child); the load process has not.
  const cpu = cpuSpan();
  const [registryCpu, loadCpu, knotCpu] = cpu.processes as [number, number, number | undefined];
  const others = cpu.machine - registryCpu - loadCpu - (knotCpu ?? 0) - cpu.self - cpu.exitedChildren;
  await http.stop();
  await Promise.all(lagProbes);
  return { dns, http: loadResult, lags, lagMissed, probeQueries, cpu, registryCpu, loadCpu, knotCpu, others };
}

async function churnAt(count: number, dir: string): Promise<Figure[]> {
  // Heartbeats an hour apart, so no instance of a slow fill turns suspect mid-run; warm-up on (default).
  const gcLog = TRACE_GC ? join(dir, `gc-${count}.log`) : undefined;
  const gcAt = () => (gcLog === undefined ? 0 : statSync(gcLog).size);
  const registry = await startRegistryProcess(
    { type: 'embedded' },
    { heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
    {
      nodeFlags: TRACE_GC ? [...NODE_FLAGS, '--trace-gc'] : NODE_FLAGS,
      stdoutFile: gcLog,
      ...(ROOT === undefined ? {} : { root: ROOT }),
    },
  );
  let knot: RunningKnot | undefined;
  try {
    const fleet = await registerMany(registry.url, count);
    const zoneText = await (await fetch(`${registry.url}/v1/zone`)).text();
    const queries = writeQueryFile(join(dir, `churn-${count}.txt`), wideMix(zoneText, ZONE, count));
    // The export holds the registry's event loop (~19 s at 100,000 instances) and the weight passes it
    // held back catch up afterwards: two weight intervals let that settle before anything is timed.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    // Same-run references, right before the churn: the same DNS load on the same fleet, no churn.
    const quietGc = gcAt();
    const quiet = await dnsperf(registry.dnsPort, queries, { ...dnsOptions, seconds: 3 });
    const quietGcTo = gcAt();
    const trips: number[] = [];
    for (let i = 0; i < 100; i++)
      trips.push((await firstAnswerMs(registry.dnsPort, `${fleet[0]!.id}.${ZONE}`)) ?? 5000);
    const rtt = summarize(trips);
    // knot serving the exported zone file: the same dnsperf load, quiet and then under the same churn.
    knot = count <= KNOT_UP_TO ? await startKnot(ZONE, zoneText) : undefined;
    const knotQuiet =
      knot === undefined ? undefined : await dnsperf(knot.port, queries, { ...dnsOptions, seconds: 3 });

    const half = Math.floor(fleet.length / 2);
    const churnGc = gcAt();
    const churnFrom = monotonicUs();
    const churn = await churnWindow(
      registry,
      registry.dnsPort,
      queries,
      {
        firstBody: count + 1_000_000,
        deregister: fleet.slice(0, half),
        beating: fleet.slice(half),
        firstSeq: 1,
        specFile: join(dir, `churn-load-${count}.json`),
      },
      undefined,
    );
    const churnTo = monotonicUs();
    if (gcLog !== undefined)
      process.stdout.write(
        `${count}: GC during the no-churn DNS window: ${gcSince(gcLog, quietGc, quietGcTo)}\n${count}: GC during the churn window: ${gcSince(gcLog, churnGc, gcAt())}\n`,
      );
    if (gcLog !== undefined && process.env.BENCH_GC_KEEP !== undefined)
      writeFileSync(
        `${process.env.BENCH_GC_KEEP}-${count}.log`,
        readFileSync(gcLog).subarray(churnGc, gcAt()),
      );
    // The reference window: the same churn against the registry (new bodies; the instances it
    // deregisters are its own registrations, oldest first) and the same probes, dnsperf asking knot.
    const floor =
      knot === undefined
        ? undefined
        : await churnWindow(
            registry,
            knot.port,
            queries,
            {
              firstBody: count + 2_000_000,
              deregister: [],
              beating: fleet.slice(half),
              // Past the seqs the first window sent (a smaller seq would be answered 409 STALE_HEARTBEAT).
              firstSeq: Math.ceil((HEARTBEAT_RATE * SECONDS) / (fleet.length - half)) + 2,
              specFile: join(dir, `churn-load-knot-${count}.json`),
            },
            knot,
          );
    await knot?.stop();
    knot = undefined;
    const { dns, lags, lagMissed, probeQueries, cpu, registryCpu, loadCpu, others } = churn;
    const { registrations, deregistrations, heartbeats, staleHeartbeats } = churn.http;
    const rssMb = registry.rssMb();
    // The registrations/s target: registrations alone, once the registry digested the churn run (its
    // journal, weight passes over the instances it changed, its garbage); timed right after the run,
    // the figure also timed that work, more of it the larger the fleet.
    const settleSeconds = await settle([registry.pid]);
    const aloneFrom = monotonicUs();
    const alone = await wrk(`${registry.url}/v1/agents`, {
      seconds: REGISTRATION_RUN_SECONDS,
      lua: registerLua(),
    });
    if (PROFILE_DIR !== undefined) {
      const windows: Record<string, Window> = {
        churn: { fromUs: churnFrom, toUs: churnTo },
        alone: { fromUs: aloneFrom, toUs: monotonicUs() },
      };
      mkdirSync(PROFILE_DIR, { recursive: true });
      writeFileSync(
        join(PROFILE_DIR, `windows-${count}.json`),
        JSON.stringify({ ...windows, aloneRequests: alone.requests }),
      );
    }

    const lag = summarize(lags);
    const probeRate = probeQueries / SECONDS;
    const offered = `${count} instances, churn ${REGISTER_RATE} reg/s + ${DEREGISTER_RATE} dereg/s + ${HEARTBEAT_RATE} hb/s offered, ${DNS_QPS} DNS q/s (wide mix)`;
    const failures = (r: typeof registrations) =>
      `${r.failed} failed, ${r.skipped} not sent${r.none > 0 ? `, ${r.none} not offered (nobody left)` : ''}${r.errors.length > 0 ? `: ${r.errors[0]}` : ''}`;
    const floorFigure: Figure[] =
      floor === undefined || knotQuiet === undefined
        ? []
        : [
            {
              name: `${count}: the machine's floor: knot serving the same zone file, asked by the same dnsperf load while the same churn and probes ran against the registry, DNS p99 (${dnsErrors(floor.dns)}; knot ${floor.knotCpu!.toFixed(0)} % CPU; knot with no churn just before: p99 ${knotQuiet.latency!.p99.toFixed(2)} ms, ${dnsErrors(knotQuiet)}; registry CPU in that window ${floor.registryCpu.toFixed(0)} %, registrations ${floor.http.registrations.perSec.toFixed(0)}/s, machine ${floor.cpu.machine.toFixed(0)} %)`,
              value: floor.dns.latency!.p99,
              unit: 'ms',
              reference: { name: "the registry's responder under churn (above)", value: dns.latency!.p99 },
            },
          ];
    return [
      {
        name: `${offered}: DNS p99 (${dnsErrors(dns)})`,
        value: dns.latency!.p99,
        unit: 'ms',
        reference: {
          name: `same DNS load, no churn, just before (${dnsErrors(quiet)})`,
          value: quiet.latency!.p99,
        },
        ...(count === 100_000 ? { target: { op: '<=' as const, value: 5 } } : {}),
      },
      ...floorFigure,
      {
        name: `${count}: registration (201) → its A answer, p50 of ${lag.n} (${lagMissed} not seen within 5 s; probes asked ${probeQueries} queries, ${probeRate.toFixed(0)}/s beside dnsperf's)`,
        value: lag.p50,
        unit: 'ms',
        reference: { name: 'one UDP query round trip, p50', value: rtt.p50 },
      },
      {
        name: `${count}: registration (201) → its A answer, p99`,
        value: lag.p99,
        unit: 'ms',
        reference: { name: 'one UDP query round trip, p99', value: rtt.p99 },
        ...(count === 100_000 ? { target: { op: '<=' as const, value: 100 } } : {}),
      },
      {
        name: `${count}: registrations/s during churn (${failures(registrations)})`,
        value: registrations.perSec,
        unit: 'req/s',
        reference: { name: 'offered', value: REGISTER_RATE },
      },
      {
        name: `${count}: deregistrations/s and heartbeats/s during churn (dereg ${failures(deregistrations)}; heartbeats ${heartbeats.perSec.toFixed(0)}/s (${staleHeartbeats} answered stale), ${failures(heartbeats)})`,
        value: deregistrations.perSec,
        unit: 'req/s',
        reference: { name: 'offered deregistrations', value: DEREGISTER_RATE },
      },
      {
        name: `${count}: registry CPU during the churn run, % of one core (its main thread waited for a CPU ${cpu.mainThreadWaits[0]!.toFixed(0)} % of the time${responderShare(cpu)}; bench process with the DNS probes ${cpu.self.toFixed(0)} %, dnsperf ${cpu.exitedChildren.toFixed(0)} %, everything else on the machine ${others.toFixed(0)} %; machine ${cpu.machine.toFixed(0)} % of 200 %)`,
        value: registryCpu,
        unit: '%',
        reference: {
          name: `CPU of the HTTP load process (its main thread waited ${cpu.mainThreadWaits[1]!.toFixed(0)} %)`,
          value: loadCpu,
        },
      },
      {
        name: `${count}: registrations/s alone, after the churn run once the registry settled (CPU < ${SETTLED_CPU_MS_PER_S / 10} % of a core over a second: ${settleSeconds.toFixed(0)} s; wrk, ${alone.errors} socket errors, ${alone.non2xx} non-2xx)`,
        value: alone.requestsPerSec,
        unit: 'req/s',
        ...(count === 100_000 ? { target: { op: '>=' as const, value: 5000 } } : {}),
      },
      {
        name: `${count}: registry RSS after the churn run`,
        value: rssMb,
        unit: 'MB',
        ...(count === 100_000 ? { target: { op: '<=' as const, value: 450 } } : {}),
      },
    ];
  } finally {
    await knot?.stop();
    await registry.stop();
  }
}

/** Issue 22: registrations, deregistrations and heartbeats while DNS load runs, at growing fleet sizes. */
export async function benchChurn(): Promise<Figure[]> {
  requireTool('dnsperf');
  const dir = mkdtempSync(join(tmpdir(), 'reach-bench-churn-'));
  const figures: Figure[] = [];
  try {
    for (const count of COUNTS) figures.push(...(await churnAt(count, dir)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(`Churn (issue 22): ${SECONDS} s per fleet size, embedded store, warm-up on`, figures);
  return figures;
}
