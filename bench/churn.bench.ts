import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from '../test/harness/debian-tools.js';
import { registerLua, registerMany, registrationBody } from './lib/agents.js';
import { firstAnswerMs } from './lib/dns-lag.js';
import { wideMix, writeQueryFile } from './lib/dns-mix.js';
import { type DnsperfResult, dnsperf } from './lib/dnsperf.js';
import { paced } from './lib/paced.js';
import { startRegistryProcess } from './lib/registry-process.js';
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
/** 100,000 instances add several minutes: `BENCH_CHURN_100K=1`. */
const COUNTS = process.env.BENCH_CHURN_COUNTS
  ? process.env.BENCH_CHURN_COUNTS.split(',').map(Number)
  : process.env.BENCH_CHURN_100K === '1'
    ? [1000, 10_000, 100_000]
    : [1000, 10_000];

interface Instance {
  id: string;
  token: string;
  seq: number;
}

const dnsOptions = { mode: 'udp' as const, clients: 1, outstanding: 20, maxQps: DNS_QPS, perQuery: true };

/** Every answer of the mix is NOERROR or NXDOMAIN; others are counted into the figure, not dropped. */
function dnsErrors(r: DnsperfResult): string {
  const bad = r.completed - (r.rcodes.NOERROR ?? 0) - (r.rcodes.NXDOMAIN ?? 0);
  return `${r.lost} of ${r.sent} lost, ${bad} other rcodes`;
}

async function churnAt(count: number, dir: string): Promise<Figure[]> {
  // Heartbeats an hour apart, so no instance of a slow fill turns suspect mid-run; warm-up on (default).
  const registry = await startRegistryProcess(
    { type: 'embedded' },
    { heartbeat_interval: '3600s', heartbeat_timeout: '10800s' },
  );
  try {
    const fleet: Instance[] = (await registerMany(registry.url, count)).map((x) => ({ ...x, seq: 0 }));
    const zoneText = await (await fetch(`${registry.url}/v1/zone`)).text();
    const queries = writeQueryFile(join(dir, `churn-${count}.txt`), wideMix(zoneText, ZONE, count));

    // Same-run references, right before the churn: the same DNS load on the same fleet, no churn.
    const quiet = await dnsperf(registry.dnsPort, queries, { ...dnsOptions, seconds: 3 });
    const trips: number[] = [];
    for (let i = 0; i < 100; i++)
      trips.push((await firstAnswerMs(registry.dnsPort, `${fleet[0]!.id}.${ZONE}`)) ?? 5000);
    const rtt = summarize(trips);

    const lags: number[] = [];
    let lagMissed = 0;
    const lagPolls: Promise<void>[] = [];
    const dereg = fleet.slice(0, Math.min(fleet.length / 2, DEREGISTER_RATE * SECONDS));
    const beating = fleet.slice(dereg.length);
    const post = (path: string, body: string, token?: string) =>
      fetch(`${registry.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        body,
      });
    const [load, registrations, deregistrations, heartbeats] = await Promise.all([
      dnsperf(registry.dnsPort, queries, { ...dnsOptions, seconds: SECONDS }),
      paced(REGISTER_RATE, SECONDS, async (i) => {
        const res = await post('/v1/agents', registrationBody(count + 1_000_000 + i));
        if (res.status !== 201) return false;
        const { instance_id } = (await res.json()) as { instance_id: string };
        if (i % LAG_EVERY === 0) {
          lagPolls.push(
            firstAnswerMs(registry.dnsPort, `${instance_id}.${ZONE}`).then((ms) => {
              if (ms === null) lagMissed++;
              else lags.push(ms);
            }),
          );
        }
        return true;
      }),
      paced(DEREGISTER_RATE, SECONDS, async (i) => {
        const gone = dereg[i];
        if (gone === undefined) return false;
        const res = await fetch(`${registry.url}/v1/agents/${gone.id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${gone.token}` },
        });
        await res.arrayBuffer();
        return res.ok;
      }),
      paced(HEARTBEAT_RATE, SECONDS, async (i) => {
        const beat = beating[i % beating.length]!;
        beat.seq++;
        const res = await post(
          `/v1/agents/${beat.id}/heartbeat`,
          JSON.stringify({ seq: beat.seq }),
          beat.token,
        );
        await res.arrayBuffer();
        return res.ok;
      }),
    ]);
    await Promise.all(lagPolls);
    const rssMb = registry.rssMb();
    // The reference of the registrations/s target: registrations alone, after the churn run.
    const alone = await wrk(`${registry.url}/v1/agents`, { seconds: 2, lua: registerLua() });

    const lag = summarize(lags);
    const churn = `${count} instances, churn ${REGISTER_RATE} reg/s + ${DEREGISTER_RATE} dereg/s + ${HEARTBEAT_RATE} hb/s offered, ${DNS_QPS} DNS q/s (wide mix)`;
    const failures = (r: typeof registrations) =>
      `${r.failed} failed, ${r.skipped} not sent${r.errors.length > 0 ? `: ${r.errors[0]}` : ''}`;
    return [
      {
        name: `${churn}: DNS p99 (${dnsErrors(load)})`,
        value: load.latency!.p99,
        unit: 'ms',
        reference: {
          name: `same DNS load, no churn, just before (${dnsErrors(quiet)})`,
          value: quiet.latency!.p99,
        },
        ...(count === 100_000 ? { target: { op: '<=' as const, value: 5 } } : {}),
      },
      {
        name: `${count}: registration (201) → its A answer, p50 of ${lag.n} (${lagMissed} not seen within 5 s)`,
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
        name: `${count}: deregistrations/s and heartbeats/s during churn (dereg ${failures(deregistrations)}; heartbeats ${heartbeats.perSec.toFixed(0)}/s, ${failures(heartbeats)})`,
        value: deregistrations.perSec,
        unit: 'req/s',
        reference: { name: 'offered deregistrations', value: DEREGISTER_RATE },
      },
      {
        name: `${count}: registrations/s alone, after the churn run (wrk, ${alone.errors} socket errors, ${alone.non2xx} non-2xx)`,
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
