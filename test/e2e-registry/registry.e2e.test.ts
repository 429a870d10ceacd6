import { describe } from 'vitest';
import { badInputSuite } from './bad-input.suite.js';
import { useE2eEnv } from './e2e-env.js';
import { ghostsSuite } from './ghosts.suite.js';
import { heartbeatSuite } from './heartbeat.suite.js';
import { lifecycleSuite } from './lifecycle.suite.js';
import { restartSuite } from './restart.suite.js';
import { STORES } from './stores.js';
import { stormSuite } from './storm.suite.js';

// Real processes: the registry (node --import tsx apps/registry/src/main.ts) on each store, SDK agents.
describe.each(STORES)('registry process on the $name store', ({ open }) => {
  const env = useE2eEnv(open);
  lifecycleSuite(env);
  heartbeatSuite(env);
  badInputSuite(env);
  stormSuite(env);
  ghostsSuite(env);
  restartSuite(env);
});
