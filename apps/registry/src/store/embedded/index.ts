/** The in-process registry store. */
export { type Clock, systemClock, type TimerHandle } from './clock.js';
export { EmbeddedStore, type EmbeddedStoreOptions, openEmbeddedStore } from './embedded-store.js';
export { journalFileFor } from './journal-lock.js';
export { ManualClock } from './manual-clock.js';
