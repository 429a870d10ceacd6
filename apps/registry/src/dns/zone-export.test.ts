import { afterEach, describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { startDnsResponderThread } from './responder-thread.js';
import { Zone } from './zone.js';
import { exportZoneFile, type ZoneExport, zoneFileChunks } from './zone-file.js';
import { ZoneReplica } from './zone-replica.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };
const CAPABILITIES = ['summarize', 'plan', 'review'];

/** More instances than one export piece holds (2,048 names), so exports pause between pieces. */
function fleet(count = 3000): FakeInstanceSource {
  const source = new FakeInstanceSource();
  source.put(
    ...Array.from({ length: count }, (_, i) =>
      makeInstance(`fleet-${i}`, { capabilities: [CAPABILITIES[i % 3]!], port: 1000 + i }),
    ),
  );
  return source;
}

/** Registrations, a re-registration, removals and new weights: touches instance and shared names. */
function churn(source: FakeInstanceSource, zone: Zone): void {
  source.put(makeInstance('late-1', { capabilities: ['summarize', 'plan'], port: 7001 }));
  source.put(makeInstance('fleet-7', { capabilities: ['review'], port: 7007 }));
  source.remove('fleet-0', 'fleet-1', 'fleet-2999');
  zone.setWeightOf(() => ({ priority: 20, weight: 3 }));
}

/** Reads an export to the end, calling `between` after its first piece. */
async function readAll(
  exported: ZoneExport,
  between: () => Promise<void> | void,
): Promise<{ text: string; pieces: number }> {
  let text = '';
  let pieces = 0;
  for await (const piece of exported.chunks) {
    text += piece;
    if (++pieces === 1) await between();
  }
  return { text, pieces };
}

describe('zone exports stay at one serial while the zone changes', () => {
  it('on this thread: a laid-out zone changed between pieces', async () => {
    const source = fleet();
    const zone = new Zone(source, options);
    const before = exportZoneFile(zone.snapshot());
    const serial = zone.serial;
    const exported = await zone.export();
    expect(exported.serial).toBe(serial);
    const { text, pieces } = await readAll(exported, () => churn(source, zone));
    expect(pieces).toBeGreaterThan(1);
    expect(zone.serial).not.toBe(serial);
    expect(text).toBe(before);
    // The next export has the changes.
    const after = await readAll(await zone.export(), () => {});
    expect(after.text).toBe(exportZoneFile(zone.snapshot()));
    expect(after.text).toContain('late-1.agents.internal.');
    expect(after.text).not.toContain('fleet-0.agents.internal.');
    zone.close();
  });

  it('in a replica: updates that arrive while it freezes are held, then applied', async () => {
    const source = fleet();
    const zone = new Zone(source, options);
    const replica = new ZoneReplica(zone.settings);
    replica.apply(structuredClone(zone.everything()));
    const before = exportZoneFile(replica.snapshot());
    let pauses = 0;
    const frozen = await replica.freeze(() => {
      // An update arrives mid-freeze: the whole zone as the churn left it.
      if (pauses++ === 0) {
        churn(source, zone);
        replica.apply({
          ...structuredClone(zone.everything()),
          deleted: ['fleet-0', 'fleet-1', 'fleet-2999'],
        });
      }
    });
    expect(pauses).toBeGreaterThan(0);
    expect([...zoneFileChunks(frozen)].join('')).toBe(before);
    expect(exportZoneFile(replica.snapshot())).toBe(exportZoneFile(zone.snapshot()));
  });
});

describe('zone exports from the responder thread', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('streams the serial it names while registrations reach the thread between pieces', async () => {
    const source = fleet();
    const zone = new Zone(source, options);
    const thread = await startDnsResponderThread({ zone, port: 0 });
    stop = () => thread.stop();
    const before = exportZoneFile(zone.snapshot());
    const exported = await thread.exportZone();
    expect(exported.serial).toBe(zone.serial);
    const { text, pieces } = await readAll(exported, async () => {
      churn(source, zone);
      // The updates reach the thread (registrations at once, weights after 50 ms) before the next piece.
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    expect(pieces).toBeGreaterThan(1);
    expect(text).toBe(before);
    const after = await thread.exportZone();
    expect(after.serial).toBe(zone.serial);
    expect((await readAll(after, () => {})).text).toBe(exportZoneFile(zone.snapshot()));
  });

  it('stops an export read only in part, and fails an export of a thread that ended', async () => {
    const zone = new Zone(fleet(), options);
    const thread = await startDnsResponderThread({ zone, port: 0 });
    stop = () => thread.stop();
    const exported = await thread.exportZone();
    for await (const piece of exported.chunks) {
      expect(piece).toContain('$ORIGIN agents.internal.');
      break;
    }
    const dead = thread.worker;
    const ended = new Promise((resolve) => dead.once('exit', resolve));
    const pending = thread.exportZone();
    await dead.terminate();
    await ended;
    await expect(pending).rejects.toThrow(/dns responder worker ended/);
  });
});
