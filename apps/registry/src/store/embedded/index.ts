/** The in-process registry store. */
export { EmbeddedStore, type EmbeddedStoreOptions, openEmbeddedStore } from './embedded-store.js';
export { journalFileFor } from './journal-lock.js';
