import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aCall } from '../testing/a2a-call.js';
import { type ChildAgent, spawnAgent } from '../testing/child-agent.js';
import { FakeRegistry } from '../testing/fake-registry.js';

// Child processes start through the tsx loader, which takes seconds on a busy machine.
const STARTUP_MS = 30_000;
const children: ChildAgent[] = [];
const registries: FakeRegistry[] = [];
afterEach(async () => {
  for (const agent of children.splice(0)) {
    if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
    await agent.exited;
  }
  for (const registry of registries.splice(0)) await registry.stop();
});

async function registry(intervalMs: number): Promise<FakeRegistry> {
  const fake = new FakeRegistry();
  fake.heartbeatIntervalMs = intervalMs;
  await fake.start();
  registries.push(fake);
  return fake;
}

function agent(script: string, env: Record<string, string>): ChildAgent {
  const spawned = spawnAgent(script, env);
  children.push(spawned);
  return spawned;
}

async function ready(child: ChildAgent): Promise<{ url: string; instanceId: string }> {
  const deadline = performance.now() + STARTUP_MS;
  for (;;) {
    const line = child
      .stdout()
      .split('\n')
      .find((l) => l.startsWith('{"ready"'));
    if (line) return (JSON.parse(line) as { ready: { url: string; instanceId: string } }).ready;
    if (child.child.exitCode !== null) throw new Error(`agent exited early: ${child.stderr()}`);
    if (performance.now() > deadline) throw new Error(`agent not ready: ${child.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const invoke = (url: string, input: unknown) =>
  a2aCall(url, { request_id: `r-${Math.random().toString(36).slice(2)}`, input });

describe('agent processes', { timeout: 90_000 }, () => {
  it('keeps heartbeating while a CPU-bound handler blocks the main thread for 3 intervals', async () => {
    const interval = 200;
    const fake = await registry(interval);
    const busy = agent('src/testing/busy-agent.ts', { REACH_CONTROL_PLANE_URL: fake.url });
    const { url, instanceId } = await ready(busy);
    await fake.waitFor(() => fake.heartbeats.length >= 1, 5000, 'a first heartbeat');
    const sentAt = performance.now();
    const { lines, ackAt, endAt } = await invoke(url, { busy_ms: 3 * interval });
    expect(lines.map((l) => l.type)).toEqual(['ack', 'result']);
    // The ack left before the handler took the thread.
    expect(endAt - ackAt).toBeGreaterThan(2 * interval);
    const during = fake.heartbeats.filter((h) => h.instanceId === instanceId && h.at > ackAt && h.at < endAt);
    expect(during.length).toBeGreaterThanOrEqual(2);
    // The worker read live load figures from shared memory while the main thread was blocked.
    expect(during.some((h) => h.body.load.in_flight === 1)).toBe(true);
    const seqs = fake.heartbeats.map((h) => h.body.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(fake.heartbeats.every((h) => h.at > sentAt - 10 * interval)).toBe(true);
  });

  it('SIGTERM deregisters the sample agent and exits 0', async () => {
    const fake = await registry(200);
    const sample = agent('examples/summarizer-v2/main.ts', { REACH_CONTROL_PLANE_URL: fake.url, PORT: '0' });
    const { url, instanceId } = await ready(sample);
    const token = fake.instances.get(instanceId)!.token;
    const { lines } = await invoke(url, {
      text: 'First sentence here. Second one follows. Third is long enough.',
      max_length: 45,
    });
    expect(lines[1]).toMatchObject({
      type: 'result',
      output: { summary: 'First sentence here. Second one follows.' },
    });
    sample.child.kill('SIGTERM');
    expect(await sample.exited).toEqual({ code: 0, signal: null });
    expect(fake.deletes).toHaveLength(1);
    expect(fake.deletes[0]).toMatchObject({ instanceId, auth: `Bearer ${token}` });
    expect(fake.instances.has(instanceId)).toBe(false);
  });

  it('the translator and fallback-summarizer samples register and answer', async () => {
    const fake = await registry(1000);
    const translator = agent('examples/translator/main.ts', { REACH_CONTROL_PLANE_URL: fake.url });
    const fallback = agent('examples/fallback-summarizer/main.ts', { REACH_CONTROL_PLANE_URL: fake.url });
    const [t, f] = await Promise.all([ready(translator), ready(fallback)]);
    const translated = await invoke(t.url, { text: 'Hello world, said the agent', target_lang: 'fr' });
    expect(translated.lines[1]).toMatchObject({
      type: 'result',
      output: { translation: 'Bonjour monde, said le agent', untranslated: ['said'] },
    });
    const summarized = await invoke(f.url, { text: 'one two three four five six seven', max_length: 15 });
    expect(summarized.lines[1]).toMatchObject({ type: 'result', output: { summary: 'one two three…' } });
    const bad = await invoke(f.url, { max_length: 15 });
    expect(bad.lines[1]).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED', retryable: false });
    const names = fake.registrations.map((r) => r.body.declaration.agent_name).sort();
    expect(names).toEqual(['fallback-summarizer', 'translator']);
    const fb = fake.registrations.find((r) => r.body.declaration.agent_name === 'fallback-summarizer')!;
    expect(fb.body.declaration).toMatchObject({ priority: 40, substitutable: true });
  });

  it('a bad declaration file exits 1 at once, naming the field, without registering', async () => {
    const fake = await registry(1000);
    const dir = mkdtempSync(join(tmpdir(), 'reach-bad-'));
    const file = join(dir, 'declaration.json');
    writeFileSync(
      file,
      JSON.stringify({
        agent_name: 'busy-agent',
        domain: 'testing',
        capabilities: { spin: { constraints: { response_time_sec: 'fast' } } },
      }),
    );
    const broken = agent('src/testing/busy-agent.ts', {
      REACH_CONTROL_PLANE_URL: fake.url,
      DECLARATION: file,
    });
    expect(await broken.exited).toEqual({ code: 1, signal: null });
    expect(broken.stderr()).toContain('INVALID_DECLARATION');
    expect(broken.stderr()).toContain('capabilities.spin.constraints.response_time_sec');
    expect(fake.attempts).toHaveLength(0);
  });
});
