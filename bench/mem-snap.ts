/**
 * Diagnosis, not a suite: `npx tsx bench/mem-snap.ts` registers DIAG_COUNT (20,000) bench instances in
 * an in-process test registry (embedded store, as the memory bench registers them), flushes the
 * journal, runs full GCs and writes a heap snapshot to DIAG_SNAP (for Chrome DevTools or a script).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestRegistry } from '@agent-reach/registry/testing';
import { registrationBody } from './lib/agents.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const COUNT = Number(process.env.DIAG_COUNT ?? 20_000);
const test = await startTestRegistry();
const { registry } = test;
for (let start = 0; start < COUNT; start += 64) {
  const batch = [];
  for (let i = start; i < Math.min(COUNT, start + 64); i++)
    batch.push(
      Promise.resolve(
        registry.app.request('/v1/agents', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: registrationBody(i),
        }),
      ).then((r) => {
        if (r.status !== 201) throw new Error(String(r.status));
      }),
    );
  await Promise.all(batch);
  await new Promise((r) => setImmediate(r));
}

await test.store.flush();
for (let i = 0; i < 4; i++) gc();
const u = process.memoryUsage();
console.log('held MB', ((u.heapUsed + u.external) / 1048576).toFixed(1));
console.log(writeHeapSnapshot(process.env.DIAG_SNAP ?? join(tmpdir(), 'registry.heapsnapshot')));
await test.cleanup();
