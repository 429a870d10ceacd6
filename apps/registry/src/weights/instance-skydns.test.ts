import { describe, expect, it } from 'vitest';
import { skydnsName } from '../skydns/index.js';
import { instanceRecord } from '../testing/fixtures.js';
import { instanceSkydns, skydnsTargetOf } from './instance-skydns.js';

const projected = (mode: 'auto' | 'on' | 'off', externalReaders: boolean) =>
  skydnsTargetOf(
    { zone: 'agents.internal', heartbeatTimeoutMs: 14_200, reach: { dns: { skydns_projection: mode } } },
    { externalReaders },
  );
const target = projected('on', false)!;
const valueAt = (entries: { key: string; value: string }[], name: string) =>
  JSON.parse(entries.find((entry) => skydnsName(entry.key) === name)!.value);

describe('instanceSkydns', () => {
  it('takes its TTL from the heartbeat timeout, rounded up to whole seconds', () => {
    expect(target).toEqual({ zone: 'agents.internal', ttlSec: 15 });
  });

  it('projects by default only to a store that another process reads (etcd), unless told on or off', () => {
    expect(projected('auto', true)).toEqual(target);
    expect(projected('auto', false)).toBeUndefined();
    expect(projected('on', false)).toEqual(target);
    expect(projected('off', true)).toBeUndefined();
  });

  it('publishes a new registration with the declaration’s weight at the default priority', () => {
    const record = instanceRecord();
    record.declaration.priority = 70;
    const all = instanceSkydns(record, target, 'all');
    expect(valueAt(all, 'summarizer-v2-3f9c._summarize._tcp.agents.internal.')).toEqual({
      host: 'summarizer-v2-3f9c.agents.internal',
      port: 8001,
      priority: 10,
      weight: 70,
      ttl: 15,
    });
    expect(valueAt(all, 'summarizer-v2-3f9c.agents.internal.')).toEqual({ host: '127.0.0.1', ttl: 15 });
  });

  it('rewrites on a weight change exactly the weighted messages of the full set, with the new weight', () => {
    const record = instanceRecord();
    const weight = { priority: 30, weight: 123 };
    const weighted = instanceSkydns(record, target, 'weighted', weight);
    const all = instanceSkydns(record, target, 'all', weight);
    expect(weighted.length).toBeGreaterThan(0);
    for (const entry of weighted) {
      expect(all).toContainEqual(entry);
      expect(JSON.parse(entry.value)).toMatchObject({ priority: 30, weight: 123 });
    }
    const untouched = all.filter((entry) => !weighted.some((w) => w.key === entry.key));
    for (const entry of untouched) expect(JSON.parse(entry.value)).not.toHaveProperty('weight');
    // The default and an explicit default weight write the same bytes (registration then leader).
    const defaults = { priority: 10, weight: record.declaration.priority };
    expect(instanceSkydns(record, target, 'all')).toEqual(instanceSkydns(record, target, 'all', defaults));
  });
});
