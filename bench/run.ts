import { benchCalling } from './calling.bench.js';
import { benchCatalog } from './catalog.bench.js';
import { benchChurn } from './churn.bench.js';
import { benchDns } from './dns.bench.js';
import { benchFastPaths } from './fast-paths.bench.js';
import { benchGovernance } from './governance.bench.js';
import { benchLiveness } from './liveness.bench.js';
import { benchMemory } from './memory.bench.js';
import { benchOrchestrator } from './orchestrator.bench.js';
import { benchRegistry } from './registry.bench.js';
import { benchRouting } from './routing.bench.js';
import { benchTakeover } from './takeover.bench.js';
import { benchZone } from './zone.bench.js';

/** `pnpm bench [suite…]`: runs the named suites (default: all) and prints Markdown tables. */
const SUITES: Record<string, () => Promise<unknown>> = {
  registry: benchRegistry,
  dns: benchDns,
  churn: benchChurn,
  liveness: benchLiveness,
  memory: benchMemory,
  routing: benchRouting,
  orchestrator: benchOrchestrator,
  takeover: benchTakeover,
  'fast-paths': benchFastPaths,
  catalog: benchCatalog,
  calling: benchCalling,
  zone: benchZone,
  governance: benchGovernance,
};

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : Object.keys(SUITES);
for (const name of names) {
  const suite = SUITES[name];
  if (!suite) {
    process.stderr.write(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(', ')}\n`);
    process.exit(2);
  }
  await suite();
}
