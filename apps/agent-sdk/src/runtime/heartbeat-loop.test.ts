import { afterEach, describe, expect, it } from 'vitest';
import type { RegisterResponse } from '../protocol/index.js';
import { FakeRegistry, freePort } from '../testing/fake-registry.js';
import { type HeartbeatEvent, HeartbeatLoop } from './heartbeat-loop.js';
import { LoadGauge } from './load-gauge.js';
import { silentLogger } from './logger.js';
import { RegistryClient } from './registry-client.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function loop(url: string, gauge = new LoadGauge(4)) {
  const events: HeartbeatEvent[] = [];
  const heartbeat = new HeartbeatLoop({
    controlPlaneUrl: url,
    gauge,
    logger: silentLogger,
    onEvent: (e) => events.push(e),
  });
  cleanups.push(() => heartbeat.stop());
  return { heartbeat, events };
}

async function registered(fake: FakeRegistry): Promise<RegisterResponse> {
  const answer = await new RegistryClient(fake.url, undefined).register({
    declaration: {
      agent_name: 'hb-test',
      version: '1',
      domain: 'testing',
      capabilities: { spin: { input: [], output: [], constraints: {}, serves: [] } },
      priority: 50,
      idempotent: false,
      substitutable: false,
    },
    endpoint: { host: '127.0.0.1', port: 9, scheme: 'http', alpn: ['http/1.1'] },
    card_sha256: 'A'.repeat(43),
  });
  if (!answer.ok) throw answer.error.error;
  return answer.value;
}

describe('HeartbeatLoop', () => {
  it('reports a stale answer without stopping, and stops beating once the registry forgets the instance', async () => {
    const fake = new FakeRegistry();
    fake.heartbeatIntervalMs = 50;
    await fake.start();
    cleanups.push(() => fake.stop());
    const lease = await registered(fake);
    fake.instances.get(lease.instance_id)!.lastSeq = 2;
    const { heartbeat, events } = loop(fake.url);
    heartbeat.follow(lease);
    await fake.waitFor(() => events.filter((e) => e.type === 'beat').length >= 1, 5000, 'an accepted beat');
    expect(events.slice(0, 3).map((e) => [e.type, e.seq])).toEqual([
      ['stale', 1],
      ['stale', 2],
      ['beat', 3],
    ]);
    fake.forget(lease.instance_id);
    await fake.waitFor(() => events.some((e) => e.type === 'lease_lost'), 5000, 'lease_lost');
    const count = fake.heartbeats.length;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.heartbeats.length).toBe(count);
  });

  it('keeps trying at the interval while the registry is unreachable', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const { heartbeat, events } = loop(url);
    heartbeat.follow({
      instance_id: 'x-1',
      lease_token: 't',
      heartbeat_interval_ms: 50,
      heartbeat_timeout_ms: 150,
      declaration_version: '1',
    });
    await expect.poll(() => events.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(events.slice(0, 3).map((e) => [e.type, e.seq])).toEqual([
      ['unreachable', 1],
      ['unreachable', 2],
      ['unreachable', 3],
    ]);
  });

  it('restarts seq at 1 for a new registration and drops reports about the old one', async () => {
    const fake = new FakeRegistry();
    fake.heartbeatIntervalMs = 50;
    await fake.start();
    cleanups.push(() => fake.stop());
    const { heartbeat, events } = loop(fake.url);
    const first = await registered(fake);
    heartbeat.follow(first);
    await fake.waitFor(() => fake.heartbeats.length >= 3, 5000, 'beats');
    const second = await registered(fake);
    heartbeat.follow(second);
    await fake.waitFor(
      () => fake.heartbeats.filter((h) => h.instanceId === second.instance_id).length >= 2,
      5000,
      'beats',
    );
    const seqs = fake.heartbeats.filter((h) => h.instanceId === second.instance_id).map((h) => h.body.seq);
    expect(seqs.slice(0, 2)).toEqual([1, 2]);
    const afterSwitch = events.slice(events.findIndex((e) => e.instanceId === second.instance_id));
    expect(afterSwitch.every((e) => e.instanceId === second.instance_id)).toBe(true);
  });
});
