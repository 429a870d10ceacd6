/** Test helpers other packages' tests and benchmarks may use: the trace store contract, a fake model provider, a sample live catalog. */
export { FakeProvider, type FakeReply, type FakeRequest } from './fake-provider.js';
export { SAMPLE_SKILLS, sampleSkillCatalog } from './skill-catalog.js';
export {
  collect,
  type TraceStoreHarness,
  traceStoreContract,
} from './trace-store-contract/index.js';
