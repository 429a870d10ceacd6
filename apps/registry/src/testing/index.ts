/** Registry test support for other packages' tests: the store contract suite and the DNS packet fuzzer. */

export { fuzzPacket, seededRandom } from './packet-fuzz.js';
export {
  describeStoreContract,
  type OpenStoreUnderTest,
  type StoreUnderTest,
} from './store-contract/index.js';
