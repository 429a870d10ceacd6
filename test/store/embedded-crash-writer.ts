// Child process for embedded-crash.test.ts: writes registrations, reports them acknowledged, then waits to be killed.
import { openEmbeddedStore } from '@agent-reach/registry';

const [path, countText] = process.argv.slice(2);
const store = await openEmbeddedStore({ path: path!, syncIntervalMs: 60_000 });
const count = Number(countText);
for (let i = 0; i < count; i++) {
  const lease = await store.grantLease(60_000);
  const result = await store.commit({
    puts: [
      { key: `/reach/instances/i-${i}`, value: JSON.stringify({ i }), lease },
      { key: `/reach/declarations/agent/${i}`, value: String(i) },
    ],
  });
  if (!result.ok) throw new Error(`commit ${i} failed`);
}
process.stdout.write('acknowledged\n');
setInterval(() => undefined, 1_000);
