import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Supervisor } from '../../scripts/supervisor.js';
import { exitOf, LineCollector, pollUntil, trackChild } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';

const PARENT = fileURLToPath(new URL('./supervised-parent.fixture.ts', import.meta.url));
const CHILD = fileURLToPath(new URL('./supervised-child.fixture.ts', import.meta.url));
// The tsx loader takes several seconds on a busy two-core machine.
const START_TIMEOUT_MS = 60_000;

/** True while `pid` runs; an orphan nobody reaped yet (state Z) has ended. Linux /proc. */
function running(pid: number): boolean {
  try {
    // The state follows the parenthesised command name, which may itself contain spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

/** What the child fixture wrote once its SIGTERM handler finished. */
function stopRecord(dir: string, name: string): { pid: number; signal: string; stoppedBefore: string[] } {
  return JSON.parse(readFileSync(join(dir, `${name}.stopped`), 'utf8'));
}

describe('Supervisor children', () => {
  let dir: string;
  let orphans: number[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-supervisor-'));
    orphans = [];
  });
  afterEach(async () => {
    // A failed test must not leave orphans listening.
    for (const pid of orphans) if (running(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('stop gracefully, in the stop order, when the supervisor is SIGKILLed', async () => {
    const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    trackChild(parent);
    const out = new LineCollector();
    out.attach(parent.stdout);
    out.attach(parent.stderr);
    // The supervisor turns each child's plain lines into records named after the child.
    const readyPid = (name: string) => {
      const record = out.json().find((r) => r.name === name && String(r.msg).startsWith('ready '));
      return record === undefined ? undefined : Number(String(record.msg).split(' ')[1]);
    };
    const ready = await pollUntil(
      () => {
        const [registry, agent] = [readyPid('registry'), readyPid('agent')];
        return registry !== undefined && agent !== undefined ? { registry, agent } : undefined;
      },
      START_TIMEOUT_MS,
      () => `children not ready; output:\n${out.tail()}`,
    );
    orphans = [ready.registry, ready.agent];
    expect(orphans.every(running)).toBe(true);

    parent.kill('SIGKILL');
    await exitOf(parent);
    await pollUntil(
      () => (orphans.some(running) ? undefined : true),
      5_000,
      () => `children ${orphans.filter(running).join(', ')} still running after their supervisor was killed`,
    );
    expect(stopRecord(dir, 'agent')).toEqual({ pid: ready.agent, signal: 'SIGTERM', stoppedBefore: [] });
    // The registry's SIGTERM came only once the agent had finished stopping.
    expect(stopRecord(dir, 'registry')).toEqual({
      pid: ready.registry,
      signal: 'SIGTERM',
      stoppedBefore: ['agent.stopped'],
    });
  });

  it('are restarted when they exit, with a delay that doubles while they keep exiting', async () => {
    const records: Array<Record<string, unknown>> = [];
    const supervisor = new Supervisor([], {
      pretty: false,
      write: (line) => records.push(JSON.parse(line)),
      restartDelayMs: 100,
      stableAfterMs: 60_000,
    });
    supervisor.start({ name: 'crasher', args: [CHILD, dir, 'crasher', 'finish'], restart: true });
    const notes = () => records.filter((r) => String(r.msg).includes('restarting in'));
    try {
      await pollUntil(
        () => (notes().length >= 3 ? true : undefined),
        START_TIMEOUT_MS,
        () => `restarts: ${JSON.stringify(notes())}`,
      );
    } finally {
      await supervisor.stopAll();
    }
    expect(
      notes()
        .slice(0, 3)
        .map((r) => [r.attempt, r.restart_in_ms]),
    ).toEqual([
      [1, 100],
      [2, 200],
      [3, 400],
    ]);
    // Each run's output is a record named after the child.
    expect(records.filter((r) => r.name === 'crasher' && r.msg === 'done').length).toBeGreaterThanOrEqual(3);
  });

  it('stop in order when a terminal’s Ctrl-C signals the whole process group', async () => {
    // The parent leads a process group of its own, as a shell's foreground job does.
    const parent = spawn(process.execPath, ['--import', 'tsx', PARENT, dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    trackChild(parent);
    const out = new LineCollector();
    out.attach(parent.stdout);
    out.attach(parent.stderr);
    const readyPid = (name: string) => {
      const record = out.json().find((r) => r.name === name && String(r.msg).startsWith('ready '));
      return record === undefined ? undefined : Number(String(record.msg).split(' ')[1]);
    };
    const ready = await pollUntil(
      () => {
        const [registry, agent] = [readyPid('registry'), readyPid('agent')];
        return registry !== undefined && agent !== undefined ? { registry, agent } : undefined;
      },
      START_TIMEOUT_MS,
      () => `children not ready; output:\n${out.tail()}`,
    );
    orphans = [ready.registry, ready.agent];

    process.kill(-parent.pid!, 'SIGINT');
    expect(await exitOf(parent)).toEqual({ code: 0, signal: null });
    expect(orphans.some(running)).toBe(false);
    // Neither child died of the group's SIGINT: the supervisor stopped the agent, then the registry.
    expect(stopRecord(dir, 'agent')).toEqual({ pid: ready.agent, signal: 'SIGTERM', stoppedBefore: [] });
    expect(stopRecord(dir, 'registry')).toEqual({
      pid: ready.registry,
      signal: 'SIGTERM',
      stoppedBefore: ['agent.stopped'],
    });
  });

  it('are not kept alive by the channel while the supervisor lives', async () => {
    const supervisor = new Supervisor([], { write: () => {} });
    const child = supervisor.start({ name: 'finisher', args: [CHILD, dir, 'finisher', 'finish'] });
    trackChild(child);
    // Without the channel's unref the child would wait for its parent forever.
    const exited = await Promise.race([
      exitOf(child),
      new Promise((resolve) => setTimeout(resolve, START_TIMEOUT_MS, 'still running')),
    ]);
    expect(exited).toEqual({ code: 0, signal: null });
  });
});
