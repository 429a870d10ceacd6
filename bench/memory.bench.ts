import { readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type DnsResponderThread, SharedParts, startRegistryDns, Zone } from '@agent-reach/registry';
import { answerEveryName, FakeInstanceSource, startTestRegistry } from '@agent-reach/registry/testing';
import { registerMany, registrationBody } from './lib/agents.js';
import { type RegistryRun, startRegistryProcess } from './lib/registry-process.js';
import { type Figure, printFigures } from './lib/report.js';

/** Fleet sizes measured, in one process, growing. */
const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number);
/** Bytes per instance above the base that the registry may take at the largest size (issue 22). */
const TARGET_BYTES = 3 * 1024;
/** Resident set the process may have at the largest size (issue 22: 100,000 instances). */
const TARGET_RSS_MB = 450;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** JS heap plus off-heap buffers after full collections: what the fleet holds, not garbage. */
function held(): number {
  for (let i = 0; i < 4; i++) gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/** Registers instances `from`..`to`-1 through the registry's own API (no sockets), 64 at a time. */
async function register(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  from: number,
  to: number,
) {
  for (let start = from; start < to; start += 64) {
    const batch = [];
    for (let i = start; i < Math.min(to, start + 64); i++) {
      batch.push(
        Promise.resolve(
          app.request('/v1/agents', {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: registrationBody(i),
          }),
        ).then(async (res) => {
          if (res.status !== 201) throw new Error(`register ${i}: ${res.status} ${await res.text()}`);
        }),
      );
    }
    await Promise.all(batch);
    // A server takes requests over many event-loop turns: yield, so the journal writes as it goes.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const kb = (bytes: number) => bytes / 1024;
const mb = (bytes: number) => bytes / 1024 / 1024;

/**
 * Where RSS goes beyond heap + buffers, read right after full GCs: V8's committed but unused pages (in
 * this isolate and in the responder thread's, `thread` as it reports itself) and the rest.
 */
function rssSlack(thread: { heapUsed: number; heapTotal: number; external: number }): Figure[] {
  held();
  const spaces = new Map(getHeapSpaceStatistics().map((s) => [s.space_name, s]));
  const old = spaces.get('old_space')!;
  const young = spaces.get('new_space')!;
  const usage = process.memoryUsage();
  // Shared pages of the node binary and libraries count in RSS too (smaps_rollup: Rss = Anonymous + file-backed).
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const anonymous = Number(/^Anonymous:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) * 1024;
  return [
    {
      name: 'RSS slack: old space committed but free after full GCs (fragmentation)',
      value: mb(old.physical_space_size - old.space_used_size),
      unit: 'MB',
      reference: { name: 'old space used', value: mb(old.space_used_size) },
    },
    {
      name: 'RSS slack: new space committed (empty after GC; V8 shrinks it only when idle)',
      value: mb(young.physical_space_size),
      unit: 'MB',
    },
    {
      name: 'RSS slack: file-backed pages (node binary, libraries)',
      value: mb(usage.rss - anonymous),
      unit: 'MB',
    },
    {
      name: "RSS slack: the DNS responder thread's heap committed but free after its full GCs (its new space, fragmentation)",
      value: mb(thread.heapTotal - thread.heapUsed),
      unit: 'MB',
      reference: { name: "the thread's heap used", value: mb(thread.heapUsed) },
    },
    {
      name: 'RSS slack: anonymous memory beyond both V8 heaps and their external buffers (malloc overhead and arenas, stacks)',
      value: mb(anonymous - usage.heapTotal - usage.external - thread.heapTotal - thread.external),
      unit: 'MB',
    },
  ];
}

/**
 * Memory per instance: a whole registry on the embedded store as it runs by default (records, store,
 * liveness, routing, the zone's feed on the main thread, and the DNS responder thread with the
 * encoded zone and answers to every name), read at 0 and at each size; then the zone's share measured
 * alone on copies of the same records (a Zone over an in-memory source, its snapshot and its encoded
 * answers). The thread is a V8 isolate of its own, so its heap and buffers are asked of it (after full
 * GCs there) and added to this isolate's.
 */
export async function benchMemory(): Promise<Figure[]> {
  const figures: Figure[] = [];
  const test = await startTestRegistry({ config: { dns: { listen: '127.0.0.1:0' } } });
  const { registry } = test;
  const thread = (await startRegistryDns(registry)) as DnsResponderThread;
  try {
    if (registry.zone.laidOut)
      throw new Error('the registry zone is laid out on the main thread: not the default');
    const threadMemory = () => thread.memory({ answerEveryName: true });
    const threadHeld = async () => {
      const { heapUsed, external } = await threadMemory();
      return heapUsed + external;
    };
    const threadBase = await threadHeld();
    const mainBase = held();
    const base = mainBase + threadBase;
    let registered = 0;
    let main = 0;
    let inThread = 0;
    for (const size of SIZES) {
      await register(registry.app, registered, size);
      registered = size;
      await new Promise((resolve) => setImmediate(resolve));
      // What the fleet holds, not a journal write still in flight.
      await test.store.flush();
      // The thread has every update once the feed's last message (sent at the end of a task) is in.
      await new Promise((resolve) => setTimeout(resolve, 100));
      inThread = (await threadHeld()) - threadBase;
      main = held() - mainBase;
      const total = main + inThread;
      figures.push({
        name: `registry on the embedded store, ${size.toLocaleString('en-US')} instances, per instance (main thread + responder thread)`,
        value: kb(total / size),
        unit: 'KB',
        reference: { name: 'base (0 instances)', value: kb(base) },
        ...(size === SIZES.at(-1) ? { target: { op: '<=' as const, value: kb(TARGET_BYTES) } } : {}),
      });
    }
    figures.push(
      {
        name: `of which the main thread, ${registered.toLocaleString('en-US')} instances, per instance`,
        value: kb(main / registered),
        unit: 'KB',
        reference: { name: 'main thread base', value: kb(mainBase) },
      },
      {
        name: `of which the DNS responder thread (encoded zone, answers to every name), ${registered.toLocaleString('en-US')} instances, per instance`,
        value: kb(inThread / registered),
        unit: 'KB',
        reference: { name: 'thread base', value: kb(threadBase) },
      },
    );
    const threadNow = await threadMemory();
    const heldMb = (held() + threadNow.heapUsed + threadNow.external) / 1024 / 1024;
    const slack = rssSlack(threadNow);
    const rss: Figure = {
      name: `this bench's process RSS with ${registered.toLocaleString('en-US')} instances (registry in-process, under tsx, after full GCs)`,
      value: process.memoryUsage().rss / 1024 / 1024,
      unit: 'MB',
      reference: { name: 'heap + buffers then', value: heldMb },
    };
    // The zone's share, alone: the same records, copied, behind an in-memory source.
    const ids = [...registry.zone.instanceIds()];
    const size = ids.length;
    const before = held();
    const source = new FakeInstanceSource();
    // Each copy parsed from its JSON and its common parts shared, as the instance cache keeps records.
    const shared = new SharedParts();
    source.put(
      ...ids.map((id) => {
        const copy = JSON.parse(JSON.stringify(registry.zone.recordOf(id)!));
        shared.adopt(copy);
        return copy;
      }),
    );
    const withRecords = held();
    const zone = new Zone(source, {
      zone: 'agents.internal',
      ttlSeconds: 15,
      nameServerAddress: '127.0.0.1',
    });
    const withEntries = held();
    zone.snapshot();
    const withSnapshot = held();
    answerEveryName(zone);
    const withAnswers = held();
    const per = (bytes: number) => kb(bytes / size);
    const whole = figures.find((f) =>
      f.name.startsWith(`registry on the embedded store, ${size.toLocaleString('en-US')} `),
    )!;
    const reference = { name: 'whole registry', value: whole.value };
    figures.push(
      {
        name: 'parsed registration record (a copy; declaration and ALPN shared as the instance cache shares them)',
        value: per(withRecords - before),
        unit: 'KB',
        reference,
      },
      { name: 'zone: per-instance entries', value: per(withEntries - withRecords), unit: 'KB', reference },
      {
        name: 'zone: snapshot (names, RRsets)',
        value: per(withSnapshot - withEntries),
        unit: 'KB',
        reference,
      },
      {
        name: 'zone: encoded answers to every name',
        value: per(withAnswers - withSnapshot),
        unit: 'KB',
        reference,
      },
      {
        name: 'store, liveness, routing and the rest (whole − record − zone)',
        value: whole.value - per(withAnswers - before),
        unit: 'KB',
        reference,
      },
    );
    zone.close();
    figures.push(rss, ...slack);
  } finally {
    await thread.stop();
    await test.cleanup();
  }
  figures.push(await processRss(SIZES.at(-1)!));
  printFigures('Memory per instance (heap + buffers after GC)', figures);
  return figures;
}

/**
 * The registry as a process of its own, as deployed: RSS read right after registering `size` instances
 * over HTTP, built (the image's `node apps/registry/dist/main.js`) against the same code under tsx (how
 * `npm start` runs it in development: tsx's loader thread and transpile caches come on top).
 */
async function processRss(size: number): Promise<Figure> {
  const rss: Record<RegistryRun, number> = { built: 0, source: 0 };
  for (const run of ['source', 'built'] as const) {
    const registry = await startRegistryProcess({ type: 'embedded' }, {}, { run });
    try {
      await registerMany(registry.url, size);
      rss[run] = registry.rssMb();
    } finally {
      await registry.stop();
    }
  }
  return {
    name: `registry process RSS with ${size.toLocaleString('en-US')} instances (built, as the image runs it; read after registering them)`,
    value: rss.built,
    unit: 'MB',
    reference: { name: 'the same registry under tsx (npm start)', value: rss.source },
    target: { op: '<=', value: TARGET_RSS_MB },
  };
}
