import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { udpQuery } from '../test/dns/dns-client.js';
import { requireTool } from '../test/harness/debian-tools.js';
import { type RunningKnot, startKnot } from '../test/harness/knot.js';
import { registerMany } from './lib/agents.js';
import { registrationLags, udpRoundTrips } from './lib/dns-lag.js';
import { type DnsperfResult, dnsperf } from './lib/dnsperf.js';
import { startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';
import { summarize } from './lib/stats.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Offered load of the latency runs, the same for both servers (far below either one's capacity). */
const LATENCY_QPS = Number(process.env.BENCH_DNS_LATENCY_QPS ?? 2000);
const INSTANCES = 1000;
const CAPABILITIES = 50;
const LAG_SAMPLES = Number(process.env.BENCH_DNS_LAG_SAMPLES ?? 50);
/** Latency runs per server and transport; each latency figure is the median over them. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ZONE = 'agents.internal';

/** The query mix: role SRV and SVCB index of every capability, alternating. */
function queryFile(dir: string): string {
  const lines: string[] = [];
  for (let i = 0; i < CAPABILITIES; i++) {
    lines.push(`_op_${i}._tcp.${ZONE} SRV`, `_op_${i}._a2a._agents.${ZONE} SVCB`);
  }
  const file = join(dir, 'queries.txt');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** Every answer must be NOERROR (anything else means wrong data); losses are reported, not fatal. */
function checked(server: string, r: DnsperfResult): DnsperfResult {
  const bad = r.completed - (r.rcodes.NOERROR ?? 0);
  if (bad > 0) throw new Error(`${server}: ${bad} answers not NOERROR (${JSON.stringify(r.rcodes)})`);
  return r;
}

/** `avg answer 641 B, 0.1 % lost` for a figure's name. */
function shape(r: DnsperfResult): string {
  const lost = r.lost > 0 ? `, ${((100 * r.lost) / r.sent).toFixed(2)} % lost` : '';
  return `avg answer ${r.avgResponseBytes} B${lost}`;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
};

/** `1.02 / 0.87 / 3.10 ms`: every run of a figure, so the spread of a busy machine shows. */
const runs = (values: number[]): string => `${values.map((v) => v.toFixed(2)).join(' / ')} ms`;

/** Both servers must hold the same 20 SRV records for a capability before they are compared. */
async function sameData(responderPort: number, knotPort: number): Promise<void> {
  for (const port of [responderPort, knotPort]) {
    const reply = await udpQuery(port, `_op_7._tcp.${ZONE}`, 'SRV');
    if (reply.answers.length !== INSTANCES / CAPABILITIES) {
      throw new Error(
        `server on ${port} has ${reply.answers.length} SRV records for _op_7, not ${INSTANCES / CAPABILITIES}`,
      );
    }
  }
}

/**
 * Issue 3's benchmark: the registry's DNS responder against knot serving the zone file exported from
 * the same registry (1,000 instances, 50 capabilities), with dnsperf; and registration-to-answer lag.
 */
export async function benchDns(): Promise<Figure[]> {
  requireTool('dnsperf');
  requireTool('knotd');
  const dir = mkdtempSync(join(tmpdir(), 'reach-bench-dns-'));
  const registry = await startRegistryProcess({ type: 'embedded' });
  let knot: RunningKnot | undefined;
  const figures: Figure[] = [];
  try {
    await registerMany(registry.url, INSTANCES);
    const zoneText = await (await fetch(`${registry.url}/v1/zone`)).text();
    knot = await startKnot(ZONE, zoneText);
    await sameData(registry.dnsPort, knot.port);
    const queries = queryFile(dir);
    const servers = { responder: registry.dnsPort, knot: knot.port };

    for (const mode of ['udp', 'tcp'] as const) {
      const note = mode === 'udp' ? 'UDP, EDNS 1232: SVCB answers truncated (TC)' : 'TCP: full answers';
      const load: Record<string, DnsperfResult> = {};
      const latency: Record<string, DnsperfResult[]> = { responder: [], knot: [] };
      // Alternate the servers so a change in the machine's load hits both alike.
      for (const [name, port] of Object.entries(servers)) {
        load[name] = checked(name, await dnsperf(port, queries, { seconds: SECONDS, mode }));
      }
      const options = {
        seconds: SECONDS,
        mode,
        clients: 1,
        outstanding: 20,
        maxQps: LATENCY_QPS,
        perQuery: true,
      };
      for (let round = 0; round < ROUNDS; round++) {
        const order = Object.entries(servers);
        if (round % 2 === 1) order.reverse();
        for (const [name, port] of order)
          latency[name]!.push(checked(name, await dnsperf(port, queries, options)));
      }
      const p99s = (name: string) => latency[name]!.map((r) => r.latency!.p99);
      const p50s = (name: string) => latency[name]!.map((r) => r.latency!.p50);
      const knotQps = load.knot!.qps;
      figures.push(
        {
          name: `${mode}: queries/s (${note}; responder ${shape(load.responder!)}, knot ${shape(load.knot!)})`,
          value: load.responder!.qps,
          unit: 'q/s',
          reference: { name: 'knot, same zone', value: knotQps },
          target: { op: '>=', value: knotQps * 0.5 },
        },
        {
          name: `${mode}: p99 latency at ${LATENCY_QPS} q/s offered, median of ${ROUNDS} runs (responder ${runs(p99s('responder'))}, ${shape(latency.responder![0]!)}; knot ${runs(p99s('knot'))}, ${shape(latency.knot![0]!)})`,
          value: median(p99s('responder')),
          unit: 'ms',
          reference: { name: 'knot', value: median(p99s('knot')) },
          target: { op: '<=', value: 2 },
        },
        {
          name: `${mode}: p50 latency at ${LATENCY_QPS} q/s, median of ${ROUNDS} runs`,
          value: median(p50s('responder')),
          unit: 'ms',
          reference: { name: 'knot', value: median(p50s('knot')) },
        },
        {
          name: `${mode}: mean latency at full load`,
          value: load.responder!.avgLatencyMs,
          unit: 'ms',
          reference: { name: 'knot', value: load.knot!.avgLatencyMs },
        },
      );
    }

    const lags = await registrationLags(registry.url, registry.dnsPort, LAG_SAMPLES, ZONE);
    const lag = summarize(lags.map((s) => Math.max(0, s.lagMs)));
    const early = lags.filter((s) => s.lagMs <= 0).length;
    const polls = summarize(lags.map((s) => s.polls));
    const rtt = summarize(await udpRoundTrips(registry.dnsPort, `_op_7._tcp.${ZONE}`, 200));
    const rttRef = { name: 'one UDP query round trip, unchanged zone, p50', value: rtt.p50 };
    figures.push(
      {
        name: `registration (201) → first DNS answer, p50 of ${lag.n} (${early} seen before the 201; p50 ${polls.p50} UDP polls)`,
        value: lag.p50,
        unit: 'ms',
        reference: rttRef,
        target: { op: '<=', value: 100 },
      },
      {
        name: 'registration (201) → first DNS answer, p99',
        value: lag.p99,
        unit: 'ms',
        reference: { name: 'one UDP query round trip, p99', value: rtt.p99 },
        target: { op: '<=', value: 100 },
      },
    );
  } finally {
    await knot?.stop();
    await registry.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  printFigures(
    `DNS (issue 3): ${INSTANCES} instances over ${CAPABILITIES} capabilities, dnsperf ${SECONDS} s per run`,
    figures,
  );
  return figures;
}
