import type { ManualClock } from '@agent-reach/sdk/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe } from 'vitest';
import type { TraceStore } from '../../traces/trace-store.js';
import { batchCases } from './batch.js';
import { type ContractContext, contractClock } from './helpers.js';
import { leaseCases } from './leases.js';
import { queryCases } from './queries.js';
import { subscribeCases } from './subscribe.js';
import { writeCases } from './writes.js';

export { collect } from './helpers.js';

/** How the contract reaches one driver. */
export interface TraceStoreHarness {
  /** Once before the suite: start the database, create a schema, … */
  setup(): Promise<void>;
  /** A store over empty tables, on this clock; closed after each test. */
  open(clock: ManualClock): Promise<TraceStore>;
  /** Once after the suite. */
  teardown(): Promise<void>;
}

/** The TraceStore contract, run against every driver (PGlite in unit tests, Postgres in `test/`). */
export function traceStoreContract(name: string, harness: TraceStoreHarness): void {
  describe(`TraceStore contract · ${name}`, () => {
    let current: ContractContext;
    beforeAll(() => harness.setup(), 120_000);
    afterAll(() => harness.teardown(), 60_000);
    beforeEach(async () => {
      const clock = contractClock();
      current = { clock, store: await harness.open(clock) };
    }, 60_000);
    afterEach(async () => {
      await current.store.close();
    });

    writeCases(() => current);
    queryCases(() => current);
    subscribeCases(() => current);
    batchCases(() => current);
    leaseCases(() => current);
  });
}
