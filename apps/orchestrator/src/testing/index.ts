/** Test helpers other packages' tests may use: the trace store contract and a fake model provider. */
export { FakeProvider, type FakeReply, type FakeRequest } from './fake-provider.js';
export {
  collect,
  type TraceStoreHarness,
  traceStoreContract,
} from './trace-store-contract/index.js';
