import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
import { instanceRecord } from '../testing/fixtures.js';
import { LivenessTable } from './liveness-table.js';

describe('LivenessTable', () => {
  it('starts fresh registrations at seq 0 and adopted ones with no baseline', () => {
    const table = new LivenessTable(new ManualClock(), 6000);
    expect(table.track(instanceRecord('a-0001'), true).lastSeq).toBe(0);
    expect(table.track(instanceRecord('a-0002'), false).lastSeq).toBeUndefined();
    // A registration seen through the watch first, then confirmed by register, is still fresh.
    const table2 = new LivenessTable(new ManualClock(), 6000);
    table2.track(instanceRecord('a-0003'), false);
    expect(table2.track(instanceRecord('a-0003'), true).lastSeq).toBe(0);
  });

  it('turns suspect after interval + grace without a heartbeat, on monotonic time', () => {
    const clock = new ManualClock(0, { wallMs: instanceRecord().registered_at });
    const table = new LivenessTable(clock, 6000);
    const entry = table.track(instanceRecord('a-0001'), true);
    clock.advance(6000);
    expect(table.stateOf(entry)).toBe('healthy');
    clock.advance(1);
    expect(table.stateOf(entry)).toBe('suspect');
    expect(table.counts()).toEqual({ healthy: 0, suspect: 1 });
    table.beat(entry, { in_flight: 1, capacity: 2, queue: 0 });
    expect(table.stateOf(entry)).toBe('healthy');
    expect(table.snapshot('a-0001')).toEqual({
      state: 'healthy',
      load: { in_flight: 1, capacity: 2, queue: 0 },
      registeredAt: 0,
    });
  });

  it('keeps the held load object when a heartbeat or fact brings an equal load, and takes a different one', () => {
    const clock = new ManualClock(0, { wallMs: instanceRecord().registered_at });
    const table = new LivenessTable(clock, 6000);
    const entry = table.track(instanceRecord('a-0001'), true);
    const first = { in_flight: 1, capacity: 4, queue: 0 };
    expect(entry.lastBeatWall).toBeNull();
    table.beat(entry, first);
    expect(entry.lastBeatWall).toBe(clock.wallNow());
    const held = entry.load;
    expect(held).toEqual(first);
    table.beat(entry, { in_flight: 1, capacity: 4, queue: 0 });
    expect(entry.load).toBe(held);
    table.applyFact(entry, { seq: 5, ageMs: 0, wallAt: 1, load: { in_flight: 1, capacity: 4, queue: 0 } });
    expect(entry.load).toBe(held);
    table.beat(entry, { in_flight: 2, capacity: 4, queue: 0 });
    expect(entry.load).toEqual({ in_flight: 2, capacity: 4, queue: 0 });
    table.applyFact(entry, { seq: 6, ageMs: 0, wallAt: 2, load: { in_flight: 2, capacity: 4, queue: 3 } });
    expect(table.snapshot('a-0001')?.load).toEqual({ in_flight: 2, capacity: 4, queue: 3 });
  });

  it('shares one load object among instances that report the same load', () => {
    const clock = new ManualClock(0, { wallMs: instanceRecord().registered_at });
    const table = new LivenessTable(clock, 6000);
    const a = table.track(instanceRecord('a-0001'), true);
    const b = table.track(instanceRecord('a-0002'), true);
    const sent = { in_flight: 3, capacity: 8, queue: 1 };
    table.beat(a, sent);
    table.beat(b, { in_flight: 3, capacity: 8, queue: 1 });
    expect(a.load).toEqual(sent);
    // Neither keeps the parsed body's object: both hold the table's one copy.
    expect(a.load).not.toBe(sent);
    expect(b.load).toBe(a.load);
    table.applyFact(b, { seq: 9, ageMs: 0, wallAt: 1, load: { in_flight: 0, capacity: 8, queue: 0 } });
    table.beat(a, { in_flight: 0, capacity: 8, queue: 0 });
    expect(a.load).toBe(b.load);
    expect(a.load).toEqual({ in_flight: 0, capacity: 8, queue: 0 });
    // Counts past the shared range are kept as they came, and still read back.
    const large = { in_flight: 5000, capacity: 8000, queue: 0 };
    table.beat(a, large);
    expect(a.load).toBe(large);
  });

  it('dates a registration first seen long after it was made (a restart) from its record, once', () => {
    const record = instanceRecord('a-0001');
    const clock = new ManualClock(50_000, { wallMs: record.registered_at + 3_600_000 });
    const table = new LivenessTable(clock, 6000);
    table.track(record, false);
    expect(table.snapshot('a-0001')?.registeredAt).toBe(50_000 - 3_600_000);
    // Fixed at first sight: time passing (or the wall clock) moves it no more.
    clock.advance(10_000);
    expect(table.snapshot('a-0001')?.registeredAt).toBe(50_000 - 3_600_000);
    // A registration made just now (its record's time is the wall clock's) counts from now.
    table.track({ ...instanceRecord('a-0002'), registered_at: clock.wallNow() }, true);
    expect(table.snapshot('a-0002')?.registeredAt).toBe(60_000);
  });

  it('keeps a tombstone saying how an instance ended', () => {
    const table = new LivenessTable(new ManualClock(), 6000);
    table.track(instanceRecord('a-0001'), true);
    table.track(instanceRecord('a-0002'), true).deregistering = true;
    table.remove('a-0001');
    table.remove('a-0002');
    expect(table.size).toBe(0);
    expect(table.tombstone('a-0001')?.state).toBe('unavailable');
    expect(table.tombstone('a-0002')?.state).toBe('deregistered');
    expect(table.snapshot('a-0002')?.state).toBe('deregistered');
    expect(table.gone().map((g) => g.record.instance_id)).toEqual(['a-0001', 'a-0002']);
  });

  it('lists the entries the instance source delivered, in order, for the weight pass (and reads them without a lookup)', () => {
    const clock = new ManualClock(0, { wallMs: instanceRecord().registered_at });
    const table = new LivenessTable(clock, 6000);
    const a = table.track(instanceRecord('a-0001'), false, true);
    // Registered here: tracked before the watch delivers it, so not listed yet.
    const b = table.track({ ...instanceRecord('a-0002'), lease_id: '2' }, true);
    const c = table.track({ ...instanceRecord('a-0003'), lease_id: '3' }, false, true);
    const first = table.listed();
    expect(first).toEqual([a, c]);
    expect(table.listed()).toBe(first);
    // The watch delivers b (same lease): the same entry, now listed in its place in the map.
    expect(table.track({ ...instanceRecord('a-0002'), lease_id: '2' }, false, true)).toBe(b);
    expect(table.listed()).toEqual([a, b, c]);
    // The array a pass holds is replaced, not changed.
    expect(first).toEqual([a, c]);
    // A registration of a's id under a new lease replaces its entry, unlisted until delivered.
    const a2 = table.track({ ...instanceRecord('a-0001'), lease_id: '4' }, true);
    expect(table.listed()).toEqual([b, c]);
    table.track({ ...instanceRecord('a-0001'), lease_id: '4' }, false, true);
    expect(table.listed()).toEqual([a2, b, c]);
    table.remove('a-0002');
    expect(table.listed()).toEqual([a2, c]);
    expect(table.recordOf(c)).toBe(c.record);
    clock.advance(7000);
    table.beat(c, { in_flight: 1, capacity: 2, queue: 0 });
    expect(table.livenessOf(c, clock.now())).toEqual(table.snapshot('a-0003'));
    expect(table.livenessOf(a2, clock.now())).toEqual(table.snapshot('a-0001'));
    expect(table.livenessOf(a2, clock.now()).state).toBe('suspect');
  });
});
