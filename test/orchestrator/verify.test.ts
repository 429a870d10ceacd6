import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, LineCollector } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { CATALOG_AGENT_KEYS } from './catalog-agents.js';
import { type System, startSystem } from './system.js';

/** `reach verify` as a user runs it, against a system's registry and orchestrator. */
async function reachVerify(system: System): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'apps/console/src/cli/main.ts'), 'verify'],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        REACH_CONFIG: '',
        REACH_REGISTRY_URL: system.registry.url,
        REACH_ORCHESTRATOR_URL: system.orchestrator.url,
        REACH_REGISTRY_TOKEN: system.token,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const out = new LineCollector();
  const err = new LineCollector();
  out.attach(child.stdout);
  err.attach(child.stderr);
  const exit = await exitOf(child);
  return { code: exit.code, out: out.lines.join('\n'), err: err.lines.join('\n') };
}

/** What verify must leave as it found it: the traces and the live instances. */
async function footprint(system: System) {
  const traces = (await (await fetch(`${system.orchestrator.url}/api/traces?limit=200`)).json()) as {
    items: Array<{ id: string }>;
  };
  const agents = (await (await fetch(`${system.registry.url}/v1/agents`)).json()) as {
    instances: Array<{ agent_name: string; state: string }>;
  };
  return {
    traces: traces.items.map((t) => t.id).sort(),
    live: agents.instances
      .filter((i) => i.state === 'healthy' || i.state === 'suspect')
      .map((i) => i.agent_name)
      .sort(),
  };
}

describe('reach verify on the embedded system (the catalog demo agents)', () => {
  let system: System;
  beforeAll(async () => {
    system = await startSystem({ agents: CATALOG_AGENT_KEYS.map((key) => ({ key })), reportOutcomes: true });
  }, 300_000);
  afterAll(() => system?.stop(), 120_000);

  it('holds V1–V6, prints our figures beside the seed’s, and leaves no trace or agent behind', async () => {
    await system.api.run('warm up: plan a small launch');
    const before = await footprint(system);
    const r = await reachVerify(system);
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    for (const id of ['V1', 'V2', 'V3', 'V4', 'V5', 'V6'])
      expect(r.out).toMatch(new RegExp(`^${id}  pass`, 'm'));
    expect(r.out).toContain('seed: srv_queries 56, card_fetches 48');
    expect(r.out).toMatch(/V3 {2}pass[\s\S]*node_attempt_failed → node_retry → n\d+→/);
    expect(r.out).toContain('all 6 propositions hold');
    expect(await footprint(system)).toEqual(before);
  }, 300_000);
});

describe('reach verify when a capability has no second candidate', () => {
  let system: System;
  beforeAll(async () => {
    // No research agent: the faulty agent is the only research candidate, so its failure cannot be routed around.
    system = await startSystem({
      agents: CATALOG_AGENT_KEYS.filter((key) => key !== 'research').map((key) => ({ key })),
    });
  }, 300_000);
  afterAll(() => system?.stop(), 120_000);

  it('exits 4 and names V3 with the node that had nowhere to go', async () => {
    const before = await footprint(system);
    const r = await reachVerify(system);
    expect(r.code, `${r.out}\n${r.err}`).toBe(4);
    expect(r.out).toMatch(/^V3 {2}FAIL/m);
    expect(r.out).toMatch(
      /why: {2}node n\d+ \(research\) failed on reach-verify-faulty and no other candidate took it over/,
    );
    expect(r.out).toMatch(/^failed: .*V3/m);
    expect(await footprint(system)).toEqual(before);
  }, 300_000);
});
