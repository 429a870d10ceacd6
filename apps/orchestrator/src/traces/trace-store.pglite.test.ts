import { PGlite } from '@electric-sql/pglite';
import { traceStoreContract } from '../testing/trace-store-contract/index.js';
import { pgliteTraceStore } from './open-pglite.js';

// One PGlite per suite (starting one takes seconds); tables are emptied before each test.
let client: PGlite | undefined;

traceStoreContract('PGlite (in memory)', {
  setup: async () => {
    client = await PGlite.create();
  },
  open: async (clock) => {
    const store = await pgliteTraceStore(client!, { clock });
    await client!.exec('truncate traces, plans, nodes, events');
    return store;
  },
  teardown: async () => {
    await client?.close();
  },
});
