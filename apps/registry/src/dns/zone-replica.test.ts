import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import type { InstanceWeights } from './instance-entry.js';
import { encodedSlices, UpdateDecoder } from './update-text.js';
import { Zone } from './zone.js';
import { ZoneFeed } from './zone-feed.js';
import { exportZoneFile } from './zone-file.js';
import { SLICE_CHANGES, SLICE_WEIGHTS, sliceUpdate, ZoneReplica, type ZoneUpdate } from './zone-replica.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };

/** A zone, a replica fed by a ZoneFeed, and the updates sent so far. */
function replicated() {
  const source = new FakeInstanceSource();
  source.put(makeInstance('alpha-1', { capabilities: ['summarize'], port: 8001 }));
  const zone = new Zone(source, options);
  const updates: ZoneUpdate[] = [];
  const replica = new ZoneReplica(zone.settings);
  // Updates cross a thread boundary in production, so the replica only ever sees clones.
  const feed = new ZoneFeed(zone, (update) => {
    updates.push(update);
    replica.apply(structuredClone(update));
  });
  replica.apply(structuredClone(feed.initial()));
  return { source, zone, replica, feed, updates };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
const weightsSettled = () => new Promise((resolve) => setTimeout(resolve, 80));

describe('ZoneReplica fed by a ZoneFeed', () => {
  it('starts equal to the zone, serial included', () => {
    const { zone, replica } = replicated();
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    expect(replica.snapshot().serial).toBe(zone.serial);
  });

  it('follows registrations, re-registrations and removals, one update per task', async () => {
    const { source, zone, replica, updates } = replicated();
    source.put(makeInstance('beta-1', { capabilities: ['plan', 'summarize'], port: 8002 }));
    source.put(makeInstance('gamma-1', { host: 'fd00::9', capabilities: ['translate'], port: 8003 }));
    source.put(makeInstance('alpha-1', { capabilities: ['summarize'], port: 9001 }));
    expect(updates).toHaveLength(0);
    await tick();
    expect(updates).toHaveLength(1);
    // A change carries the zone's own encoding of each instance, not its record to encode again.
    expect(updates[0]!.put.map((put) => ('entry' in put ? put.entry.name : undefined))).toEqual([
      'beta-1',
      'gamma-1',
      'alpha-1',
    ]);
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    source.remove('beta-1');
    await tick();
    expect(updates.at(-1)!.deleted).toEqual(['beta-1']);
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    expect(exportZoneFile(replica.snapshot())).not.toContain('beta-1');
  });

  it('carries the weight function as data, sending only the weights that moved', async () => {
    const { source, zone, replica, updates } = replicated();
    source.put(makeInstance('beta-1', { capabilities: ['summarize'], port: 8002 }));
    await tick();
    let heavy = 'alpha-1';
    zone.setWeightOf((record, capability) => ({
      priority: record.instance_id === heavy ? 5 : 20,
      weight: capability === undefined ? 7 : 3,
    }));
    await weightsSettled();
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    expect(exportZoneFile(replica.snapshot())).toMatch(/SRV\s+5 3 8001 alpha-1/);
    heavy = 'beta-1';
    const before = updates.length;
    zone.weightsChanged();
    zone.weightsChanged();
    await weightsSettled();
    expect(updates).toHaveLength(before + 1);
    // Both instances moved; the two calls made one update.
    expect(
      updates
        .at(-1)!
        .weights.map(([id]) => id)
        .sort(),
    ).toEqual(['alpha-1', 'beta-1']);
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    const sent = updates.length;
    zone.weightsChanged();
    await weightsSettled();
    expect(updates).toHaveLength(sent + 1);
    expect(updates.at(-1)!.weights).toEqual([]);
    expect(replica.snapshot().serial).toBe(zone.serial);
  });

  it('looks only at the instances named when told which weights moved', async () => {
    const { source, zone, replica, updates } = replicated();
    source.put(makeInstance('beta-1', { capabilities: ['summarize'], port: 8002 }));
    await tick();
    let priority = 10;
    zone.setWeightOf(() => ({ priority, weight: 3 }));
    await weightsSettled();
    priority = 30; // both instances' weights move, but only beta-1 is named
    zone.weightsChanged(['beta-1']);
    zone.weightsChanged(['gone-1']); // an instance the zone no longer has is skipped
    await weightsSettled();
    expect(updates.at(-1)!.weights.map(([id]) => id)).toEqual(['beta-1']);
    expect(exportZoneFile(replica.snapshot())).toMatch(/SRV\s+30 3 8002 beta-1/);
    expect(exportZoneFile(replica.snapshot())).toMatch(/SRV\s+10 3 8001 alpha-1/);
  });

  it('sends nothing once closed', async () => {
    const { source, feed, updates } = replicated();
    feed.close();
    source.put(makeInstance('beta-1', { port: 8002 }));
    await tick();
    expect(updates).toHaveLength(0);
  });

  it('applied as slices of a big update, one by one, ends equal to the zone', async () => {
    const { source, zone, updates } = replicated();
    // A second replica that only ever sees slices.
    const sliced = new ZoneReplica(zone.settings);
    sliced.apply(structuredClone(replicated().feed.initial()));
    const seen = updates.length;
    for (let i = 0; i < 40; i++)
      source.put(
        makeInstance(`burst${i}-1`, {
          capabilities: [['plan', 'summarize', 'translate'][i % 3]!],
          port: 9000 + i,
        }),
      );
    await tick();
    source.remove('burst7-1');
    source.remove('burst8-1');
    await tick();
    let priority = 10;
    zone.setWeightOf(() => ({ priority, weight: 3 }));
    await weightsSettled();
    priority = 20;
    zone.weightsChanged();
    await weightsSettled();
    const sent = updates.slice(seen);
    // As the worker gets them: each slice serialised on its own and decoded in its turn.
    const decoder = new UpdateDecoder();
    const slices = sent.flatMap((update) => encodedSlices(update).map((text) => decoder.decode(text)));
    // The burst of 40 registrations went as slices of at most SLICE_CHANGES (8).
    expect(sliceUpdate(sent[0]!).map((slice) => slice.put.length)).toEqual([8, 8, 8, 8, 8]);
    for (const slice of slices) {
      expect(slice.put.length + slice.deleted.length).toBeLessThanOrEqual(SLICE_CHANGES);
      expect(slice.weights.length).toBeLessThanOrEqual(SLICE_WEIGHTS);
      sliced.apply(slice);
    }
    expect(exportZoneFile(sliced.snapshot())).toBe(exportZoneFile(zone.snapshot()));
    expect(sliced.snapshot().serial).toBe(zone.serial);
  });

  it('cuts at the slice sizes: SLICE_WEIGHTS weights stay whole, one more is a second slice', () => {
    const weights = (n: number) =>
      Array.from(
        { length: n },
        (_, i) =>
          [`w${i}`, { generic: { priority: 10, weight: 1 }, byCapability: {} }] as [string, InstanceWeights],
      );
    const deleted = (n: number) => Array.from({ length: n }, (_, i) => `gone-${i}`);
    const update = (w: number, d: number): ZoneUpdate => ({
      serial: 3,
      put: [],
      weights: weights(w),
      deleted: deleted(d),
    });
    expect(sliceUpdate(update(SLICE_WEIGHTS, SLICE_CHANGES))).toHaveLength(1);
    expect(sliceUpdate(update(SLICE_WEIGHTS + 1, 0)).map((slice) => slice.weights.length)).toEqual([
      SLICE_WEIGHTS,
      1,
    ]);
    expect(sliceUpdate(update(0, SLICE_CHANGES + 1)).map((slice) => slice.deleted.length)).toEqual([
      SLICE_CHANGES,
      1,
    ]);
  });

  it('keeps one SOA per serial: the slices of one update share it, the next serial gets its own', () => {
    const { zone } = replicated();
    const replica = new ZoneReplica(zone.settings);
    const deletes = (serial: number, ids: string[]): ZoneUpdate => ({
      serial,
      put: [],
      weights: [],
      deleted: ids,
    });
    replica.apply(deletes(7, ['a']));
    const first = replica.snapshot();
    replica.apply(deletes(7, ['b']));
    const second = replica.snapshot();
    expect(second).not.toBe(first);
    expect(second.soa).toBe(first.soa);
    replica.apply(deletes(8, ['c']));
    const next = replica.snapshot();
    expect(next.soa).not.toBe(first.soa);
    expect(next.serial).toBe(8);
    // The serial is the SOA RDATA's third field, after the two names.
    expect(exportZoneFile(next)).toMatch(/SOA\s+\S+\s+\S+\s+8\s/);
  });

  it('leaves a small update whole', () => {
    const small: ZoneUpdate = { serial: 4, put: [], weights: [], deleted: ['a', 'b'] };
    expect(sliceUpdate(small)).toEqual([small]);
  });
});
