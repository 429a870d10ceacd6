import { expect, it } from 'vitest';
import type { Leadership } from '../../store/store.js';
import { type StoreUnderTest, sleep, waitFor } from './harness.js';

const electionName = () => `contract-${Math.random().toString(36).slice(2, 10)}`;

/** Resolves when `leadership` reports `isLeader`. */
function nextChange(leadership: Leadership, isLeader: boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = leadership.onChange((value) => {
      if (value === isLeader) {
        stop();
        resolve();
      }
    });
  });
}

/** Leader election: exactly one leader, and the next candidate takes over when it leaves. */
export function electionContract(ctx: () => StoreUnderTest): void {
  it('has exactly one leader; the next candidate leads after the leader resigns', async () => {
    const { store } = ctx();
    const name = electionName();
    const first = await store.campaign(name, 'first');
    const second = await store.campaign(name, 'second');
    const third = await store.campaign(name, 'third');
    expect([first.isLeader, second.isLeader, third.isLeader]).toEqual([true, false, false]);
    const firstLost = nextChange(first, false);
    const secondWon = nextChange(second, true);
    await first.resign();
    await Promise.all([firstLost, secondWon]);
    expect([first.isLeader, second.isLeader, third.isLeader]).toEqual([false, true, false]);
    // A waiting candidate that resigns never leads, and the leader keeps leading.
    await third.resign();
    await sleep(200);
    expect([second.isLeader, third.isLeader]).toEqual([true, false]);
    await second.resign();
    expect(second.isLeader).toBe(false);
  });

  it('keeps separate elections apart', async () => {
    const { store } = ctx();
    const a = await store.campaign(electionName(), 'same');
    const b = await store.campaign(electionName(), 'same');
    expect([a.isLeader, b.isLeader]).toEqual([true, true]);
    await a.resign();
    await b.resign();
  });

  it('hands leadership to another process when the leader closes its store', async ({ skip }) => {
    const { store, peer } = ctx();
    if (peer === undefined) return skip('one process only: elections do not span stores');
    const other = await peer();
    const name = electionName();
    const leader = await store.campaign(name, 'leader');
    const follower = await other.campaign(name, 'follower');
    expect([leader.isLeader, follower.isLeader]).toEqual([true, false]);
    await store.close();
    await waitFor('the follower to lead', () => follower.isLeader, 15_000);
    expect(leader.isLeader).toBe(false);
    await follower.resign();
  });
}
