import { registerMany } from './lib/agents.js';
import { startHelloWorld } from './lib/hello.js';
import { measureReachOverhead } from './lib/reach-overhead.js';
import { type ReadyChild, spawnReady } from './lib/ready-child.js';
import { type RegistryProcess, startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';
import { routeLua } from './lib/route-lua.js';
import { type WrkResult, wrk } from './lib/wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
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

async function withRegistry<T>(ttl: string | undefined, fn: (r: RegistryProcess) => Promise<T>): Promise<T> {
  const registry = await startRegistryProcess(
    { type: 'embedded' },
    ttl === undefined ? {} : { route_cache_ttl: ttl },
  );
  try {
    await registerMany(registry.url, INSTANCES);
    return await fn(registry);
  } finally {
    await registry.stop();
  }
}

/**
 * Issue 4's benchmark: route queries/s with 1,000 instances over 50 capabilities (cache hits, distinct
 * queries, cache off) next to a bare node:http hello-world; and ReachClient's overhead per call.
 */
export async function benchRouting(): Promise<Figure[]> {
  const hello = await startHelloWorld();
  const helloRps = (await wrk(hello.url, { seconds: SECONDS })).requestsPerSec;
  await hello.close();
  const ref = { name: 'node:http hello-world', value: helloRps };
  const figures: Figure[] = [];

  await withRegistry(undefined, async (registry) => {
    await expectRoute(registry.url, true);
    const cached = clean(
      'cached',
      await wrk(registry.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'repeated') }),
    );
    const distinct = clean(
      'distinct',
      await wrk(registry.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'distinct') }),
    );
    figures.push(
      {
        name: 'route/s, cached (50 queries repeated)',
        value: cached.requestsPerSec,
        unit: 'req/s',
        reference: ref,
        target: { op: '>=', value: 10_000 },
      },
      { name: 'route p99, cached', value: cached.p99Ms, unit: 'ms' },
      {
        name: 'route/s, uncached (every query distinct, cache on)',
        value: distinct.requestsPerSec,
        unit: 'req/s',
        reference: ref,
      },
    );

    let agent: ReadyChild<{ url: string }> | undefined;
    try {
      agent = await spawnReady<{ url: string }>('bench/lib/instant-agent.ts', {
        REACH_CONTROL_PLANE_URL: registry.url,
      });
      const o = await measureReachOverhead(registry.url, agent.ready.url, CALLS);
      const base = { name: 'fetch POST /v1/invoke, p50', value: o.fetch.p50 };
      figures.push(
        {
          name: `reach() − fetch p50, routed by the registry: p50 (n=${o.fetch.n})`,
          value: o.reachViaRegistry.p50 - o.fetch.p50,
          unit: 'ms',
          reference: base,
          target: { op: '<=', value: 1 },
        },
        {
          name: 'reach() − fetch p50, routed by the registry: p99',
          value: o.reachViaRegistry.p99 - o.fetch.p50,
          unit: 'ms',
          reference: { name: 'fetch p99', value: o.fetch.p99 },
        },
        {
          name: 'reach() − fetch p50, route answer in memory: p50',
          value: o.reachRouteInMemory.p50 - o.fetch.p50,
          unit: 'ms',
          reference: base,
          target: { op: '<=', value: 1 },
        },
        {
          name: 'reach() − fetch p50, route answer in memory: p99',
          value: o.reachRouteInMemory.p99 - o.fetch.p50,
          unit: 'ms',
          reference: { name: 'fetch p99', value: o.fetch.p99 },
        },
        { name: 'POST /v1/route alone (fetch), p50', value: o.route.p50, unit: 'ms', reference: base },
      );
    } finally {
      await agent?.stop();
    }
  });

  await withRegistry('0s', async (registry) => {
    await expectRoute(registry.url, false);
    const off = clean(
      'cache off',
      await wrk(registry.url, { seconds: SECONDS, lua: routeLua(CAPABILITIES, 'repeated') }),
    );
    figures.push(
      {
        name: 'route/s, uncached (route_cache_ttl: 0s)',
        value: off.requestsPerSec,
        unit: 'req/s',
        reference: ref,
      },
      { name: 'route p99, uncached (route_cache_ttl: 0s)', value: off.p99Ms, unit: 'ms' },
    );
  });

  printFigures(
    `Routing (issue 4): ${INSTANCES} instances over ${CAPABILITIES} capabilities, wrk ${SECONDS} s per run`,
    figures,
  );
  return figures;
}
