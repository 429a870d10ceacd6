import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openEmbeddedStore, registryConfigFrom, registryLogger, startRegistry } from '@agent-reach/registry';
import { registerMany } from './lib/agents.js';
import { type Figure, printFigures } from './lib/report.js';
import { quantile } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_GOVERNANCE_CALLS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const INSTANCES = 1000;
const CAPABILITIES = 50;

const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Nanoseconds per call of `fn` over CALLS calls. */
function nsPerCall(fn: (i: number) => void): number {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) fn(i);
  return ((performance.now() - started) * 1e6) / CALLS;
}

/**
 * The governance report's cost on the hot path and off it, in one registry process (embedded store,
 * 1,000 instances over 50 capabilities): a cached `route()` (which counts into the route history) next
 * to the history's increment alone; one flush of 50 changed buckets; one 7d report.
 */
export async function benchGovernance(): Promise<Figure[]> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-bench-governance-'));
  const store = await openEmbeddedStore({ path: dir });
  const registry = await startRegistry({
    config: registryConfigFrom({ control_plane: { governance: { flush_interval: '1h' } } }),
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
  });
  try {
    await registerMany(registry.url, INSTANCES);
    const { router } = registry.routing;
    const { history } = registry.routing;
    const queries = Array.from({ length: CAPABILITIES }, (_, n) =>
      // The shape the route API hands the router (defaults applied).
      ({ operation: `op_${n}`, domain: 'bench', constraints: {}, max_candidates: 3, exclude: [] }),
    );
    const call = { retries: 0, hit: true, fallback: false, failed: false };
    // Warm the route cache and the JIT.
    for (let i = 0; i < 20_000; i++) router.route(queries[i % CAPABILITIES]!);
    const route: number[] = [];
    const increment: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runs = [
        () => route.push(nsPerCall((i) => router.route(queries[i % CAPABILITIES]!))),
        () =>
          increment.push(
            nsPerCall((i) => {
              history.routed(queries[i % CAPABILITIES]!.operation);
              history.callEnded(queries[i % CAPABILITIES]!.operation, call);
            }),
          ),
      ];
      for (let i = 0; i < runs.length; i++) runs[(round + i) % runs.length]!();
    }
    const flushes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const query of queries) history.routed(query.operation);
      const started = performance.now();
      await history.flush();
      flushes.push(performance.now() - started);
    }
    const reports: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const res = await fetch(`${registry.url}/v1/reports/governance?window=7d`);
      if (res.status !== 200) throw new Error(`report: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      reports.push(performance.now() - started);
    }
    const routeNs = median(route);
    const figures: Figure[] = [
      {
        name: `route history increments per route and per ended call (median of ${ROUNDS} × ${CALLS.toLocaleString('en-US')}: ${increment.map((v) => v.toFixed(0)).join(' / ')})`,
        value: median(increment),
        unit: 'ns',
        reference: { name: 'a cached route() call (counting included)', value: routeNs },
      },
      {
        name: `flush of ${CAPABILITIES} changed buckets (one commit), median of ${ROUNDS}`,
        value: median(flushes),
        unit: 'ms',
      },
      {
        name: `GET /v1/reports/governance?window=7d (50 agents, 1,000 instances, the 50 flushed buckets), median of ${ROUNDS}`,
        value: median(reports),
        unit: 'ms',
      },
    ];
    printFigures('Governance — `pnpm bench governance`', figures);
    return figures;
  } finally {
    await registry.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
