import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedStore, registryConfigFrom, registryLogger, startRegistry } from '@agent-reach/registry';
import { heartbeatLua, registerLua, registerMany } from './lib/agents.js';
import { startHelloWorld } from './lib/hello.js';
import { type Figure, printFigures } from './lib/report.js';
import { routeLua } from './lib/route-lua.js';
import { summarize } from './lib/stats.js';
import { wrk } from './lib/wrk.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const INSTANCES = 1000;

type Variant = 'fast paths' | 'hono';
type Endpoint = 'heartbeat' | 'route' | 'register';

/** One registry (embedded store, 1,000 instances) served one way; requests/s of each endpoint. */
async function measure(variant: Variant): Promise<Record<Endpoint, number>> {
  const dir = await mkdtemp(join(tmpdir(), 'reach-fast-paths-'));
  const store = await openEmbeddedStore({ path: join(dir, 'registry.json') });
  const registry = await startRegistry({
    config: registryConfigFrom({
      control_plane: {
        heartbeat_interval: '60s',
        heartbeat_timeout: '300s',
        storm: { min_instances: 1_000_000 },
      },
    }),
    store,
    logger: registryLogger('silent'),
    listen: { host: '127.0.0.1', port: 0 },
    fastPaths: variant === 'fast paths',
  });
  try {
    const instances = await registerMany(registry.url, INSTANCES);
    const heartbeat = await wrk(registry.url, { seconds: SECONDS, lua: heartbeatLua(instances) });
    const route = await wrk(registry.url, { seconds: SECONDS, lua: routeLua(50, 'repeated') });
    const register = await wrk(`${registry.url}/v1/agents`, { seconds: SECONDS, lua: registerLua() });
    return {
      heartbeat: heartbeat.requestsPerSec,
      route: route.requestsPerSec,
      register: register.requestsPerSec,
    };
  } finally {
    await registry.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The registry's node:http fast paths against the same endpoints through hono on @hono/node-server,
 * in one run: rounds alternate the two so machine load falls on both alike; medians are reported.
 */
export async function benchFastPaths(): Promise<Figure[]> {
  const hello = await startHelloWorld();
  const helloRps = (await wrk(hello.url, { seconds: SECONDS })).requestsPerSec;
  await hello.close();
  const runs: Record<Variant, Record<Endpoint, number[]>> = {
    'fast paths': { heartbeat: [], route: [], register: [] },
    hono: { heartbeat: [], route: [], register: [] },
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of ['fast paths', 'hono'] as const) {
      const r = await measure(variant);
      for (const endpoint of ['heartbeat', 'route', 'register'] as const)
        runs[variant][endpoint].push(r[endpoint]);
    }
  }
  const figures: Figure[] = [{ name: 'node:http hello-world', value: helloRps, unit: 'req/s' }];
  for (const endpoint of ['heartbeat', 'route', 'register'] as const) {
    const fast = summarize(runs['fast paths'][endpoint]).p50;
    const hono = summarize(runs.hono[endpoint]).p50;
    figures.push({
      name: `${endpoint} through hono (median of ${ROUNDS}; runs ${runs.hono[endpoint].map(Math.round).join(' / ')})`,
      value: hono,
      unit: 'req/s',
      reference: {
        name: `fast path (runs ${runs['fast paths'][endpoint].map(Math.round).join(' / ')})`,
        value: fast,
      },
    });
  }
  printFigures('Registry HTTP fast paths against hono on @hono/node-server', figures);
  return figures;
}
