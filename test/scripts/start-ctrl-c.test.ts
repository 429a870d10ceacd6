import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, LineCollector, pollUntil, trackChild } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';

// `pnpm start` with its demo agents, stopped the way a terminal's Ctrl-C does: SIGINT to the whole
// foreground process group. Its own ports and data directory, so it never meets a user's `pnpm start`.
const BASE = 9600;
const REGISTRY = `http://127.0.0.1:${BASE + 1}`;
const AGENTS = 9;
// tsx, nine agents and PGlite take long on a busy two-core machine.
const UP_TIMEOUT_MS = 240_000;

let dir: string;
const runs: ChildProcess[] = [];

/** Starts `scripts/start.ts` as a terminal would: the leader of a process group of its own. */
async function startOnce(): Promise<{ start: ChildProcess; out: LineCollector }> {
  const { DATABASE_URL: _db, ...env } = process.env;
  const start = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/start.ts', '--port-base', String(BASE), '--data', join(dir, 'data')],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  trackChild(start);
  runs.push(start);
  const out = new LineCollector();
  out.attach(start.stdout);
  out.attach(start.stderr);
  await pollUntil(
    () => (out.json().some((r) => r.msg === 'Agent Reach is running') ? true : undefined),
    UP_TIMEOUT_MS,
    () => `pnpm start did not come up:\n${out.tail(40)}`,
    250,
  );
  return { start, out };
}

async function ctrlC(start: ChildProcess): Promise<void> {
  process.kill(-start.pid!, 'SIGINT');
  expect(await exitOf(start)).toEqual({ code: 0, signal: null });
}

const instances = async (): Promise<InstanceView[]> =>
  ((await (await fetch(`${REGISTRY}/v1/agents`)).json()) as { instances: InstanceView[] }).instances;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-start-ctrl-c-'));
});
afterAll(async () => {
  for (const start of runs)
    if (start.exitCode === null && start.signalCode === null) process.kill(-start.pid!, 'SIGTERM');
  await Promise.all(runs.map((start) => exitOf(start)));
  await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('Ctrl-C in the terminal running pnpm start', () => {
  it(
    'deregisters every agent before the registry stops; the next start shows exactly 9 agents, none suspect',
    async () => {
      const first = await startOnce();
      const before = await instances();
      expect(before).toHaveLength(AGENTS);

      await ctrlC(first.start);
      // Every agent said it deregistered (the registry was still there to hear it).
      const deregistered = first.out
        .json()
        .filter((r) => String(r.service).startsWith('agent') && r.msg === 'deregistered');
      expect(deregistered.map((r) => r.instance_id).sort()).toEqual(
        before.map((view) => view.instance_id).sort(),
      );

      const second = await startOnce();
      const after = await instances();
      expect(after).toHaveLength(AGENTS);
      expect(after.filter((view) => view.state !== 'healthy')).toEqual([]);
      const old = new Set(before.map((view) => view.instance_id));
      expect(after.filter((view) => old.has(view.instance_id))).toEqual([]);
      await ctrlC(second.start);
    },
    2 * UP_TIMEOUT_MS + 60_000,
  );
});
