import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from '../../testing/store-contract/index.js';
import type { RegistryStore } from '../store.js';
import { type EmbeddedStoreOptions, openEmbeddedStore } from './embedded-store.js';

/** The contract on the embedded store, with the default fsync interval or with `fsync_before_ack`. */
function embeddedContract(name: string, options: Omit<EmbeddedStoreOptions, 'path'>): void {
  describeStoreContract(name, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-embedded-'));
    const path = join(dir, 'registry.json');
    let current: RegistryStore = await openEmbeddedStore({ path, ...options });
    return {
      get store() {
        return current;
      },
      reopen: async () => {
        await current.close();
        current = await openEmbeddedStore({ path, ...options });
        return current;
      },
      cleanup: async () => {
        await current.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
}

embeddedContract('embedded', {});
embeddedContract('embedded, fsync before ack', { fsyncBeforeAck: true });
