/** Test support for every app (a dev-time subpath; no production module imports it). */

export { collectSse } from './collect-sse.js';
export { FakeDnsServer, type FakeRecord } from './fake-dns-server.js';
export { ManualClock } from './manual-clock.js';
