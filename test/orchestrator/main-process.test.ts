import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitOf, LineCollector } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { OrchestratorProcess } from './orchestrator-process.js';

describe('the orchestrator process', () => {
  it('stops at once on a bad config value, naming the key', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(REPO_ROOT, 'apps/orchestrator/src/main.ts')],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, REACH_ORCHESTRATOR_LISTEN: 'not-an-address', REACH_CONFIG: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const stderr = new LineCollector();
    stderr.attach(child.stderr);
    const exit = await exitOf(child);
    expect(exit.code).toBe(1);
    expect(stderr.tail()).toMatch(/orchestrator: invalid config: orchestrator\.listen/);
  });

  it('serves probes and exits 0 on SIGTERM', async () => {
    const proc = await OrchestratorProcess.start({ dnsPort: 9 });
    expect((await fetch(`${proc.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${proc.url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${proc.url}/metrics`)).text()).toContain(
      'reach_orchestrator_runs_started_total',
    );
    const exit = await proc.stop();
    expect(exit).toEqual({ code: 0, signal: null });
  });
});
