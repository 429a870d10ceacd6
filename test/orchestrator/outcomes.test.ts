import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { type System, startSystem } from './system.js';

interface RoutingStats {
  instances: Array<{ instance_id: string; window: number; failures: number }>;
}

let system: System;

beforeAll(async () => {
  system = await startSystem({ agents: [{ key: 'writing' }, { key: 'synthesis' }], reportOutcomes: true });
});
afterAll(async () => {
  await system?.stop();
});

describe('orchestrated calls report their outcomes to the registry', () => {
  it("counts each node's call in the bound instance's health window", async () => {
    const stats = async () =>
      (await (await fetch(`${system.registry.url}/v1/routing/stats`)).json()) as RoutingStats;
    expect((await stats()).instances.every((i) => i.window === 0)).toBe(true);
    const summary = await system.api.run('设计一份生日派对策划');
    expect(summary.status).toBe('ok');
    const trace = await system.api.trace(summary.trace_id);
    const bound = trace.nodes.map((n) => (n as { instance_id?: string }).instance_id);
    expect(bound).toHaveLength(2);
    // The reporter sends once a second, in the background.
    const seen = await pollUntil(
      async () => {
        const s = await stats();
        const windows = bound.map((id) => s.instances.find((i) => i.instance_id === id));
        return windows.every((w) => (w?.window ?? 0) >= 1) ? windows : undefined;
      },
      10_000,
      () => `outcomes of ${bound.join(', ')} in the registry`,
    );
    expect(seen.map((w) => w?.failures)).toEqual([0, 0]);
  });
});
