import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * CPU of one pass of the leader's weight publication at several fleet sizes, A/B across checkouts:
 * `tsx bench/weight-pass.ts <checkout> [<checkout>…]`. Each checkout × size runs in a process of its
 * own (the checkout's real WeightPublisher, Router, LivenessTable and WeightTable on an embedded
 * store; the instances as a FakeInstanceSource holds them), BENCH_ROUNDS (3) rounds alternated, the
 * order flipped every round. Per run, the CPU (`process.cpuUsage`, this process only: a pass runs on
 * the main thread) of BENCH_PASSES (3) passes, each in three states of the fleet:
 * - **fresh**: every instance registered just now, nothing published and nothing moving (the state of
 *   the registry suite's heartbeat run, seconds after its fill);
 * - **mass warm-up**: every instance registered 60 s ago, so every one has crossed its first DNS
 *   warm-up step and moved, and a pass writes its budget of 1,000 (the state of a registration run on
 *   a fleet filled a minute earlier);
 * - **settled**: every weight published and nothing moving (a pass only examines).
 * Sizes: BENCH_WEIGHT_SIZES (10000,100000).
 */
const SIZES = (process.env.BENCH_WEIGHT_SIZES ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PASSES = Number(process.env.BENCH_PASSES ?? 3);

interface PassCpu {
  freshMs: number;
  warmupMs: number;
  settledMs: number;
}

if (process.env.WEIGHT_PASS_CHILD !== undefined) {
  const { root, size } = JSON.parse(process.env.WEIGHT_PASS_CHILD) as { root: string; size: number };
  process.stdout.write(`${JSON.stringify(await measure(root, size))}\n`);
  process.exit(0);
}

const roots = process.argv.slice(2).map((root) => resolve(root));
if (roots.length === 0) throw new Error('usage: tsx bench/weight-pass.ts <checkout> [<checkout>…]');
const results = new Map<string, PassCpu[]>();
for (let round = 0; round < ROUNDS; round++) {
  const runs = roots.flatMap((root) => SIZES.map((size) => ({ root, size })));
  for (const run of round % 2 === 0 ? runs : runs.reverse()) {
    const cpu = await child(run.root, run.size);
    const key = `${run.root} at ${run.size}`;
    results.set(key, [...(results.get(key) ?? []), cpu]);
    process.stdout.write(
      `round ${round + 1} ${key}: fresh ${cpu.freshMs.toFixed(1)} ms, mass warm-up ${cpu.warmupMs.toFixed(1)} ms CPU per pass, settled ${cpu.settledMs.toFixed(1)} ms\n`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(
  '\n| checkout at size | fresh: CPU ms per pass (median; runs) | mass warm-up | settled |\n|---|---|---|---|\n',
);
for (const [key, runs] of results) {
  const cell = (pick: (r: PassCpu) => number) =>
    `${median(runs.map(pick)).toFixed(1)} (${runs.map((r) => pick(r).toFixed(1)).join(' / ')})`;
  process.stdout.write(
    `| ${key} | ${cell((r) => r.freshMs)} | ${cell((r) => r.warmupMs)} | ${cell((r) => r.settledMs)} |\n`,
  );
}

function child(root: string, size: number): Promise<PassCpu> {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', import.meta.filename], {
      env: { ...process.env, WEIGHT_PASS_CHILD: JSON.stringify({ root, size }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on('exit', (code) =>
      code === 0
        ? done(JSON.parse(out.trim().split('\n').at(-1)!) as PassCpu)
        : fail(new Error(`exit ${code}`)),
    );
  });
}

async function measure(root: string, size: number): Promise<PassCpu> {
  const from = (path: string) => import(pathToFileURL(join(root, 'apps/registry/src', path)).href);
  const { WeightPublisher } = await from('weights/weight-publisher.ts');
  const { WeightTable } = await from('weights/weight-table.ts');
  const { Router } = await from('routing/router.ts');
  const { LivenessTable } = await from('liveness/liveness-table.ts');
  const { bindLivenessToInstances } = await from('liveness/bind-cache.ts');
  const { openEmbeddedStore } = await from('store/embedded/index.ts');
  const { FakeInstanceSource } = await from('testing/fake-instance-source.ts');
  const { testInstance } = await from('testing/routing-instances.ts');
  const { ManualClock } = await import(pathToFileURL(join(root, 'apps/agent-sdk/src/testing/index.ts')).href);

  const dir = mkdtempSync(join(tmpdir(), 'reach-weight-pass-'));
  const store = await openEmbeddedStore({ path: dir });
  try {
    const clock = new ManualClock(1_000, { wallMs: Date.now() });
    const source = new FakeInstanceSource();
    const liveness = new LivenessTable(clock, 3_600_000);
    const router = new Router({ source, clock, liveness });
    // As the registry binds them: the source's records tracked (and, where the checkout has it, listed).
    bindLivenessToInstances(liveness, source);
    const table = await WeightTable.start(store, source);
    // One parsed declaration per agent, as a fleet of replicas shares them.
    const templates = Array.from({ length: 50 }, (_, a) =>
      testInstance(`bench-agent-${a}-0`, { agent: `bench-agent-${a}`, registeredAt: clock.wallNow() }),
    );
    const records = [];
    for (let i = 0; i < size; i++) {
      const template = templates[i % 50]!;
      const record = {
        instance_id: `${template.agent_name}-${i.toString(16).padStart(6, '0')}`,
        agent_name: template.agent_name,
        declaration: template.declaration,
        endpoint: template.endpoint,
        card_url: template.card_url,
        card_sha256: template.card_sha256,
        lease_token_hash: template.lease_token_hash,
        // A lease each, as in the registry (a lease's bindings are a short list, searched in full).
        lease_id: await store.grantLease(3_600_000),
        registered_at: template.registered_at,
      };
      records.push(record);
      liveness.track(record, true);
    }
    source.put(...records);
    const t0 = performance.now();
    const step = (what: string) =>
      process.env.BENCH_VERBOSE &&
      process.stderr.write(`${size}: ${what} at ${(performance.now() - t0).toFixed(0)} ms\n`);
    let leader = true;
    const publisherWith = (maxWeightMovesPerPass: number) =>
      new WeightPublisher({
        store,
        source,
        router,
        table,
        clock,
        isLeader: () => leader,
        // The registry's roster where the checkout has one (a checkout before it walks the source's records).
        ...(typeof liveness.listed === 'function' ? { roster: liveness } : {}),
        maxWeightMovesPerPass,
      });
    const cpuOfPasses = async (publisher: { publishOnce(): Promise<string[]> }) => {
      const before = process.cpuUsage();
      for (let i = 0; i < PASSES; i++) await publisher.publishOnce();
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / PASSES;
    };
    // One pass before the clock moves, so the JIT has seen the code (nothing moves yet).
    const publisher = publisherWith(1000);
    await publisher.publishOnce();
    step('first pass');
    const freshMs = await cpuOfPasses(publisher);
    step('fresh passes');
    clock.advance(60_000);
    const warmupMs = await cpuOfPasses(publisher);
    // Publish every weight, then let the watch deliver them: a settled fleet.
    step('warm-up passes');
    const settling = publisherWith(size * 2);
    await settling.publishOnce();
    await new Promise((r) => setTimeout(r, 200));
    step('settled');
    const settledMs = await cpuOfPasses(settling);
    step('settled passes');
    leader = false;
    router.close();
    await table.close();
    return { freshMs, warmupMs, settledMs };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
