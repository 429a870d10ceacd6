import { ManualClock } from '@agent-reach/sdk/testing';
import { describe, expect, it } from 'vitest';
import { settledChanges } from './settled-changes.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setup(
  options: { quietMs: number; maxWaitMs: number; sliceSize?: number } = { quietMs: 50, maxWaitMs: 500 },
) {
  const clock = new ManualClock();
  const heard: string[][] = [];
  const settled = settledChanges(clock, (ids) => heard.push(ids), options);
  return { clock, heard, settled };
}

describe('settledChanges', () => {
  it('hands changes that arrive close together on as one list, once they stop arriving', () => {
    const { clock, heard, settled } = setup();
    settled.add(['a', 'b']);
    clock.advance(20);
    settled.add(['c']);
    clock.advance(20);
    settled.add(['a', 'd']);
    clock.advance(49);
    expect(heard).toEqual([]);
    clock.advance(1);
    expect(heard).toEqual([['a', 'b', 'c', 'd']]);
    clock.advance(1000);
    expect(heard).toHaveLength(1);
  });

  it('hands them on after maxWaitMs even while changes keep arriving', () => {
    const { clock, heard, settled } = setup({ quietMs: 50, maxWaitMs: 120 });
    for (let t = 0; t < 200; t += 30) {
      settled.add([`i${t}`]);
      clock.advance(30);
    }
    // The first list closes 120 ms after its first id (ids added at 0, 30, 60, 90).
    expect(heard[0]).toEqual(['i0', 'i30', 'i60', 'i90']);
    clock.advance(100);
    expect(heard.flat()).toEqual(['i0', 'i30', 'i60', 'i90', 'i120', 'i150', 'i180']);
  });

  it('flush hands on at once; close drops what is pending', () => {
    const { clock, heard, settled } = setup();
    settled.add(['a']);
    settled.flush();
    expect(heard).toEqual([['a']]);
    settled.add(['b']);
    settled.close();
    clock.advance(1000);
    expect(heard).toEqual([['a']]);
  });

  it('hands a long list on sliceSize ids per turn of the event loop, in order', async () => {
    const { clock, heard, settled } = setup({ quietMs: 50, maxWaitMs: 500, sliceSize: 2 });
    settled.add(['a', 'b', 'c', 'd', 'e']);
    clock.advance(50);
    // Only the first slice in this turn: DNS queries waiting in the event loop run before the next.
    expect(heard).toEqual([['a', 'b']]);
    await nextTurn();
    expect(heard).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    // Ids that settle while a list is being handed on join its tail.
    settled.add(['f']);
    clock.advance(50);
    expect(heard).toHaveLength(2);
    await nextTurn();
    await nextTurn();
    expect(heard).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
    await nextTurn();
    expect(heard).toHaveLength(3);
  });

  it('close stops a list that is being handed on', async () => {
    const { clock, heard, settled } = setup({ quietMs: 50, maxWaitMs: 500, sliceSize: 1 });
    settled.add(['a', 'b', 'c']);
    clock.advance(50);
    settled.close();
    await nextTurn();
    expect(heard).toEqual([['a']]);
  });

  it('ignores empty lists', () => {
    const { clock, heard, settled } = setup();
    settled.add([]);
    clock.advance(1000);
    expect(heard).toEqual([]);
  });
});
