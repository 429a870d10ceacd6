/** Registry test support for other packages' tests and benches: the store contract suite, the DNS packet fuzzer, the governance fixture, an in-memory registry and zone queries. */

export { answerEveryName, queryBytes } from '../dns/zone-queries.js';
export { FakeInstanceSource, makeInstance } from './fake-instance-source.js';
export { GOVERNANCE_EXPECTED, GOVERNANCE_FIXTURE, GOVERNANCE_NOW_MS } from './governance-fixture.js';
export { fuzzPacket, seededRandom } from './packet-fuzz.js';
export { waitFor } from './store-contract/harness.js';
export {
  describeStoreContract,
  type OpenStoreUnderTest,
  type StoreUnderTest,
} from './store-contract/index.js';
export { startTestRegistry, type TestRegistry } from './test-registry.js';
