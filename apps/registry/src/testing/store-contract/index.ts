import { afterEach, beforeEach, describe } from 'vitest';
import { electionContract } from './election.js';
import type { OpenStoreUnderTest, StoreUnderTest } from './harness.js';
import { kvContract } from './kv.js';
import { leaseContract } from './lease.js';
import { restartContract } from './restart.js';
import { watchContract } from './watch.js';

export type { OpenStoreUnderTest, StoreUnderTest } from './harness.js';

/**
 * The behaviour every RegistryStore must show, run against each implementation (embedded and real
 * etcd). `open` gives a fresh store per test; real time and short TTLs, since etcd cannot be faked.
 */
export function describeStoreContract(name: string, open: OpenStoreUnderTest): void {
  describe(`RegistryStore contract: ${name}`, () => {
    let current: StoreUnderTest | undefined;
    const ctx = (): StoreUnderTest => {
      if (current === undefined) throw new Error('store under test not opened');
      return current;
    };
    beforeEach(async () => {
      current = await open();
    });
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });
    describe('keys and commits', () => kvContract(ctx));
    describe('leases', () => leaseContract(ctx));
    describe('watch', () => watchContract(ctx));
    describe('election', () => electionContract(ctx));
    describe('restart', () => restartContract(ctx));
  });
}
