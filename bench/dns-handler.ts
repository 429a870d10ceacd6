import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  callgrindControl,
  callgrindLauncher,
  instructionsBetween,
  threadInstructions,
} from './lib/callgrind.js';
import { wideMix } from './lib/dns-mix.js';

/**
 * CPU per query of the responder's packet handler alone (no sockets), on the wide mix of a fleet
 * laid out like the dns suite's (BENCH_DNS_INSTANCES instances of 50 agents, one capability each):
 * `tsx bench/dns-handler.ts <checkout> [<checkout>…]` loads each checkout's registry (a worktree of
 * an older commit is the "before") and alternates timed passes over the mix; a checkout that still has
 * the answer cache (before session 20 removed it) is also timed with one of 10,000 entries. What a query costs beyond this is
 * the socket's (see `bench/dns-ab.ts`, whose Node UDP echo reference measures that).
 *
 * BENCH_CALLGRIND=1: instructions per query instead of CPU time (valgrind callgrind's Ir on the
 * main thread, which a loaded machine does not move): the script runs itself under valgrind, each
 * pass is one warm-up pass over the whole mix uninstrumented, then one counted pass over it.
 */
const INSTANCES = Number(process.env.BENCH_DNS_INSTANCES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Milliseconds of queries per timed pass. */
const PASS_MS = Number(process.env.BENCH_PASS_MS ?? 1500);
const APEX = 'agents.internal';
/** Only the first N questions of the mix, repeated (e.g. 100: the narrow mix the old answer cache was made for). */
const QUESTIONS =
  process.env.BENCH_DNS_QUESTIONS === undefined ? undefined : Number(process.env.BENCH_DNS_QUESTIONS);
/** Only the variant whose name starts with this (`cache`, `no cache`), e.g. for a profile. */
const VARIANT = process.env.BENCH_VARIANT;
const CALLGRIND = process.env.BENCH_CALLGRIND === '1';
/** Set in the copy of this script that runs under valgrind. */
const UNDER_VALGRIND = process.env.BENCH_UNDER_VALGRIND === '1';
const TYPES: Record<string, number> = { A: 1, NS: 2, SOA: 6, TXT: 16, AAAA: 28, SRV: 33, SVCB: 64 };

interface Registry {
  Zone: new (source: unknown, options: object) => { snapshot(): unknown };
  /** Only in checkouts before session 20. */
  AnswerCache?: new (
    entries?: number,
  ) => unknown;
  handleMessage(zone: unknown, msg: Buffer, transport: 'udp' | 'tcp', cache?: unknown): Buffer | null;
  exportZoneFile(snapshot: unknown): string;
}
interface Testing {
  FakeInstanceSource: new () => { put(...records: unknown[]): void };
  makeInstance(id: string, options: object): unknown;
  queryBytes(name: string, type: number, id?: number): Buffer;
}

async function load(root: string) {
  // Single modules, not the packages' entry points: two checkouts' vitest (the testing entry) cannot load together.
  const dns = (file: string) => import(join(root, 'apps/registry/src', file));
  const registry = {
    ...(await dns('dns/zone.ts')),
    ...(await dns('dns/answer-cache.ts').catch(() => ({}))),
    ...(await dns('dns/packet-handler.ts')),
    ...(await dns('dns/zone-file.ts')),
  } as Registry;
  const testing = {
    ...(await dns('testing/fake-instance-source.ts')),
    // dns/ since session 12 (the responder thread's memory figure uses it); testing/ in older checkouts.
    ...(await dns('dns/zone-queries.ts').catch(() => dns('testing/zone-queries.ts'))),
  } as Testing;
  const source = new testing.FakeInstanceSource();
  for (let i = 0; i < INSTANCES; i++) {
    // Ids as the registry makes them: `<agent>-<hex>`.
    const id = `bench-agent-${i % 50}-${(0x10000000 + i * 2654435761).toString(16).slice(-8)}`;
    source.put(
      testing.makeInstance(id, {
        host: '127.0.0.1',
        port: 20_000 + (i % 40_000),
        capabilities: [`op_${i % 50}`],
      }),
    );
  }
  const zone = new registry.Zone(source, { zone: APEX, ttlSeconds: 15, nameServerAddress: '127.0.0.1' });
  const mix = wideMix(registry.exportZoneFile(zone.snapshot()), APEX, INSTANCES);
  const asked = QUESTIONS === undefined ? mix : mix.slice(0, QUESTIONS);
  const queries = asked.map((q, i) => testing.queryBytes(q.name, TYPES[q.type]!, i & 0xffff));
  return { root, zone, registry, queries };
}

type Loaded = Awaited<ReturnType<typeof load>>;

/** Microseconds of CPU per query (the process's: GC threads included) over one pass of at least PASS_MS. */
function pass(loaded: Loaded, cache: unknown): { us: number; bytes: number } {
  const { zone, registry, queries } = loaded;
  const started = process.cpuUsage();
  const deadline = performance.now() + PASS_MS;
  let asked = 0;
  let bytes = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < 1000; i++) {
      const reply = registry.handleMessage(zone, queries[asked % queries.length]!, 'udp', cache);
      bytes += reply?.length ?? 0;
      asked++;
    }
  }
  const used = process.cpuUsage(started);
  return { us: (used.user + used.system) / asked, bytes: bytes / asked };
}

const roots = process.argv.slice(2).map((root) => resolve(root));
if (roots.length === 0) throw new Error('usage: tsx bench/dns-handler.ts <checkout> [<checkout>…]');
if (CALLGRIND && !UNDER_VALGRIND) {
  const dir = mkdtempSync(join(tmpdir(), 'reach-dns-handler-cg-'));
  try {
    const child = spawnSync(
      callgrindLauncher(join(dir, 'callgrind.out'))[0]!,
      [
        ...callgrindLauncher(join(dir, 'callgrind.out')).slice(1),
        process.execPath,
        ...process.execArgv,
        ...process.argv.slice(1),
      ],
      { stdio: 'inherit', env: { ...process.env, BENCH_UNDER_VALGRIND: '1' } },
    );
    process.exit(child.status ?? 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const loaded: Loaded[] = [];
for (const root of roots) loaded.push(await load(root));
process.stdout.write(`${INSTANCES} instances, ${loaded[0]!.queries.length} questions\n`);
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? loaded : [...loaded].reverse();
  for (const l of order) {
    const { AnswerCache } = l.registry;
    const variants: Array<readonly [string, unknown]> = [
      ...(AnswerCache === undefined ? [] : [['cache 10,000', new AnswerCache(10_000)] as const]),
      ['no cache', undefined],
    ];
    for (const [name, cache] of variants.filter(
      ([name]) => VARIANT === undefined || name.startsWith(VARIANT),
    )) {
      if (UNDER_VALGRIND) {
        const r = await countedPass(l, cache);
        process.stdout.write(
          `${l.root} ${name}: ${Math.round(r.instructions).toLocaleString('en-US')} instructions/query avg reply ${r.bytes.toFixed(0)} B\n`,
        );
        continue;
      }
      const r = pass(l, cache);
      process.stdout.write(
        `${l.root} ${name}: ${r.us.toFixed(2)} µs CPU/query avg reply ${r.bytes.toFixed(0)} B\n`,
      );
    }
  }
}

/** One pass over the whole mix uninstrumented, then one counted: main-thread instructions per query. */
async function countedPass(loaded: Loaded, cache: unknown): Promise<{ instructions: number; bytes: number }> {
  const { zone, registry, queries } = loaded;
  const all = () => {
    let bytes = 0;
    for (const query of queries) bytes += registry.handleMessage(zone, query, 'udp', cache)?.length ?? 0;
    return bytes;
  };
  all();
  // callgrind_control waits for valgrind to look for commands, which it does while a thread runs.
  const control = async (args: string[]) =>
    threadInstructions(
      await callgrindControl(process.pid, args, () => new Promise((done) => setTimeout(done, 5))),
    );
  await control(['-i', 'on']);
  const before = await control(['-e', 'Ir']);
  const bytes = all();
  const after = await control(['-e', 'Ir']);
  await control(['-i', 'off']);
  return {
    instructions: (instructionsBetween(before, after).get(1) ?? 0) / queries.length,
    bytes: bytes / queries.length,
  };
}
