import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import type { InstanceWeights } from './instance-entry.js';
import { encodedSlices, UpdateDecoder } from './update-text.js';
import { Zone } from './zone.js';
import { ZoneFeed } from './zone-feed.js';
import { sliceUpdate, type ZoneUpdate } from './zone-replica.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };

/** The updates a ZoneFeed sends for these registrations, made in one task. */
async function updatesFor(register: (source: FakeInstanceSource) => void): Promise<ZoneUpdate[]> {
  const source = new FakeInstanceSource();
  const zone = new Zone(source, options);
  const updates: ZoneUpdate[] = [];
  const feed = new ZoneFeed(zone, (update) => updates.push(update));
  feed.initial();
  register(source);
  await new Promise((resolve) => setTimeout(resolve, 0));
  feed.close();
  return updates;
}

describe('encodedSlices and UpdateDecoder', () => {
  it('encodes each slice on its own, in order, each decoding to the slice', () => {
    const weights = Array.from(
      { length: 300 },
      (_, i) =>
        [`w${i}`, { generic: { priority: 10, weight: i }, byCapability: {} }] as [string, InstanceWeights],
    );
    const update: ZoneUpdate = { serial: 9, put: [], weights, deleted: ['gone-1', 'gone-2'] };
    const encoded = encodedSlices(update);
    const decoder = new UpdateDecoder();
    expect(encoded.map((text) => decoder.decode(text))).toEqual(sliceUpdate(update));
    // The deletes, then the weights in slices of SLICE_WEIGHTS (32): nine full ones and the last 12.
    expect(encoded.map((text) => decoder.decode(text).weights.length)).toEqual([0, ...Array(9).fill(32), 12]);
  });

  it('sends each distinct declaration of a slice once, as a text of its own, and decodes registrations as sent', async () => {
    const [update] = await updatesFor((source) => {
      // A version's instances share one declaration object, as the instance cache keeps them.
      const alpha = makeInstance('alpha-0', { capabilities: ['summarize'], port: 8000 });
      source.put(alpha);
      for (let i = 1; i < 6; i++)
        source.put({
          ...makeInstance(`alpha-${i}`, { capabilities: ['summarize'], port: 8000 + i }),
          declaration: alpha.declaration,
        });
      source.put(makeInstance('beta-1', { capabilities: ['plan', 'translate'], port: 9000 }));
      // An equal declaration of its own: its text goes again, and decodes all the same.
      source.put(makeInstance('alpha-9', { capabilities: ['summarize'], port: 8009 }));
    });
    const [text, ...more] = encodedSlices(update!);
    expect(more).toEqual([]);
    // The JSON, then alpha's and beta's declarations (each instance of a version shares one object).
    const lines = text!.split('\n');
    // Declarations and weights (the zone keeps equal weights as one object, so alpha's go once).
    expect(lines).toHaveLength(6);
    const parsed = lines.slice(1).map((line) => JSON.parse(line));
    expect(parsed.map((value) => value.agent_name ?? 'weights')).toEqual([
      'alpha',
      'weights',
      'beta',
      'weights',
      'alpha',
    ]);
    const decoded = new UpdateDecoder().decode(text!);
    expect(decoded).toEqual(structuredClone(update));
    // Equal texts decode to one object.
    const declarations = decoded.put.map((put) => ('entry' in put ? put.entry.declaration : undefined));
    expect(new Set(declarations).size).toBe(2);
  });

  it('parses a declaration text once: later slices with the same text get the same object', async () => {
    const updates = await updatesFor((source) => {
      source.put(makeInstance('alpha-1', { capabilities: ['summarize'], port: 8001 }));
    });
    const later = await updatesFor((source) => {
      source.put(makeInstance('alpha-2', { capabilities: ['summarize'], port: 8002 }));
      source.put(makeInstance('gamma-1', { capabilities: ['summarize'], port: 8003 }));
    });
    const decoder = new UpdateDecoder();
    const declarations = [...updates, ...later]
      .flatMap(encodedSlices)
      .flatMap((text) => decoder.decode(text).put)
      .map((put) => ('entry' in put ? put.entry.declaration : undefined));
    expect(declarations.map((d) => d?.agent_name)).toEqual(['alpha', 'alpha', 'gamma']);
    expect(declarations[1]).toBe(declarations[0]);
    // Another decoder parses its own.
    const other = new UpdateDecoder().decode(encodedSlices(later[0]!)[0]!).put[0]!;
    expect('entry' in other && other.entry.declaration).not.toBe(declarations[0]);
    expect('entry' in other && other.entry.declaration).toEqual(declarations[0]);
  });

  it('hands out the objects the replica already shares, and weights as texts too', async () => {
    const [update] = await updatesFor((source) => {
      source.put(makeInstance('alpha-1', { capabilities: ['summarize'], port: 8001 }));
    });
    const put = update!.put[0]!;
    if (!('entry' in put)) throw new Error('expected an entry');
    const kept = {
      declaration: structuredClone(put.entry.declaration),
      weights: structuredClone(put.weights),
    };
    const decoder = new UpdateDecoder({
      sharedDeclaration: (d) =>
        JSON.stringify(d) === JSON.stringify(kept.declaration) ? kept.declaration : d,
      sharedWeights: (w) => (JSON.stringify(w) === JSON.stringify(kept.weights) ? kept.weights : w),
    });
    const [text] = encodedSlices(update!);
    // The JSON, the declaration, the weights.
    expect(text!.split('\n')).toHaveLength(3);
    const decoded = decoder.decode(text!).put[0]!;
    expect('entry' in decoded && decoded.entry.declaration).toBe(kept.declaration);
    expect(decoded.weights).toBe(kept.weights);
    const pairs = decoder.decode(
      encodedSlices({ serial: 2, put: [], weights: [['alpha-1', put.weights]], deleted: [] })[0]!,
    ).weights;
    expect(pairs).toEqual([['alpha-1', put.weights]]);
    expect(pairs[0]![1]).toBe(kept.weights);
  });
});
