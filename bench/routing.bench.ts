import { registerMany } from './lib/agents.js';
import { startHelloWorld } from './lib/hello.js';
import { measureReachOverhead } from './lib/reach-overhead.js';
import { type ReadyChild, spawnReady } from './lib/ready-child.js';
import { type RegistryProcess, startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';
import { routeLua } from './lib/route-lua.js';
import { quantile } from './lib/stats.js';
import { type WrkResult, wrk } from './lib/wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** wrk rounds; each round measures every kind once, and each figure is the median over the rounds. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_REACH_CALLS ?? 1000);
const INSTANCES = 1000;
const CAPABILITIES = 50;

/** Checks that the registry answers route queries as the run assumes: 3 candidates, cached or not. */
async function expectRoute(url: string, cachedOnRepeat: boolean): Promise<void> {
  const ask = async () => {
    const res = await fetch(`${url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"operation":"op_3","domain":"bench"}',
    });
    if (!res.ok) throw new Error(`route: ${res.status} ${await res.text()}`);
    return (await res.json()) as { candidates: unknown[]; cached: boolean };
  };
  await ask();
  const second = await ask();
  if (second.candidates.length !== 3 || second.cached !== cachedOnRepeat) {
    throw new Error(`route answer: ${second.candidates.length} candidates, cached=${second.cached}`);
  }
}

function clean(what: string, r: WrkResult): WrkResult {
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${what}: ${r.non2xx} non-2xx answers, ${r.errors} socket errors`);
  return r;
}

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** The wrk runs of one round, in order; the order rotates from round to round. */
type Kind = 'hello' | 'cached' | 'distinct' | 'off';

async function routeRounds(hello: string, withCache: RegistryProcess, cacheOff: RegistryProcess) {
  const runs: Record<Kind, () => Promise<WrkResult>> = {
    hello: () => wrk(hello, { seconds: SECONDS }),
    cached: () => wrk(withCache.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'repeated') }),
    distinct: () => wrk(withCache.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'distinct') }),
    off: () => wrk(cacheOff.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'repeated') }),
  };
  const kinds = Object.keys(runs) as Kind[];
  const rps: Record<Kind, number[]> = { hello: [], cached: [], distinct: [], off: [] };
  const p99: Record<Kind, number[]> = { hello: [], cached: [], distinct: [], off: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < kinds.length; i++) {
      const kind = kinds[(round + i) % kinds.length]!;
      const r = clean(kind, await runs[kind]());
      rps[kind].push(r.requestsPerSec);
      p99[kind].push(r.p99Ms);
    }
  }
  const pick = (kind: Kind) => ({ rps: median(rps[kind]), p99: median(p99[kind]), all: rps[kind] });
  return { hello: pick('hello'), cached: pick('cached'), distinct: pick('distinct'), off: pick('off') };
}

const spread = (all: number[]) => all.map((v) => Math.round(v).toLocaleString('en-US')).join(' / ');

/**
 * Issue 4's benchmark: route queries/s with 1,000 instances over 50 capabilities (cache hits, distinct
 * queries, cache off) next to a bare node:http hello-world; and ReachClient's overhead per call.
 */
export async function benchRouting(): Promise<Figure[]> {
  const hello = await startHelloWorld();
  const withCache = await startRegistryProcess({ type: 'embedded' });
  const cacheOff = await startRegistryProcess({ type: 'embedded' }, { route_cache_ttl: '0s' });
  let agent: ReadyChild<{ url: string }> | undefined;
  const figures: Figure[] = [];
  try {
    await Promise.all([registerMany(withCache.url, INSTANCES), registerMany(cacheOff.url, INSTANCES)]);
    await expectRoute(withCache.url, true);
    await expectRoute(cacheOff.url, false);
    const r = await routeRounds(hello.url, withCache, cacheOff);
    const ref = { name: 'node:http hello-world', value: r.hello.rps };
    const each = `median of ${ROUNDS} runs`;
    figures.push(
      {
        name: `route/s, cached (50 queries repeated), ${each}: ${spread(r.cached.all)}`,
        value: r.cached.rps,
        unit: 'req/s',
        reference: ref,
        target: { op: '>=', value: 10_000 },
      },
      {
        name: `route/s, uncached (every query distinct, cache on): ${spread(r.distinct.all)}`,
        value: r.distinct.rps,
        unit: 'req/s',
        reference: ref,
      },
      {
        name: `route/s, uncached (route_cache_ttl: 0s): ${spread(r.off.all)}`,
        value: r.off.rps,
        unit: 'req/s',
        reference: ref,
      },
      {
        name: 'route p99 (wrk, 32 connections), cached',
        value: r.cached.p99,
        unit: 'ms',
        reference: { name: 'hello-world p99', value: r.hello.p99 },
      },
      {
        name: 'route p99, uncached (route_cache_ttl: 0s)',
        value: r.off.p99,
        unit: 'ms',
        reference: { name: 'hello-world p99', value: r.hello.p99 },
      },
    );

    agent = await spawnReady<{ url: string }>('bench/lib/instant-agent.ts', {
      REACH_CONTROL_PLANE_URL: withCache.url,
    });
    const o = await measureReachOverhead(withCache.url, agent.ready.url, CALLS);
    const base = { name: 'fetch A2A SendStreamingMessage, p50', value: o.fetch.p50 };
    const baseP99 = { name: 'fetch p99', value: o.fetch.p99 };
    // p50 and p99 of one way of calling, each minus the p50 of plain fetch; the target is on the p50.
    const overhead = (p50Name: string, p99Name: string, summary: typeof o.fetch): Figure[] => [
      {
        name: p50Name,
        value: summary.p50 - o.fetch.p50,
        unit: 'ms',
        reference: base,
        target: { op: '<=', value: 1 },
      },
      { name: p99Name, value: summary.p99 - o.fetch.p50, unit: 'ms', reference: baseP99 },
    ];
    figures.push(
      ...overhead(
        `reach() − fetch p50, default client (its route cache, 1 s): p50 (n=${o.fetch.n})`,
        'reach() − fetch p50, default client: p99',
        o.reachDefault,
      ),
      ...overhead(
        'reach() − fetch p50, routeCache: false (registry asked every call): p50',
        'reach() − fetch p50, routeCache: false: p99',
        o.reachViaRegistry,
      ),
      { name: 'POST /v1/route alone (fetch), p50', value: o.route.p50, unit: 'ms', reference: base },
    );
  } finally {
    await agent?.stop();
    await Promise.all([withCache.stop(), cacheOff.stop()]);
    await hello.close();
  }
  printFigures(
    `Routing (issue 4): ${INSTANCES} instances over ${CAPABILITIES} capabilities, wrk ${SECONDS} s per run`,
    figures,
  );
  return figures;
}
