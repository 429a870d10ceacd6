import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from '../../testing/store-contract/index.js';
import type { RegistryStore } from '../store.js';
import { openEmbeddedStore } from './embedded-store.js';

describeStoreContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'reach-embedded-'));
  const path = join(dir, 'registry.json');
  let current: RegistryStore = await openEmbeddedStore({ path });
  return {
    get store() {
      return current;
    },
    reopen: async () => {
      await current.close();
      current = await openEmbeddedStore({ path });
      return current;
    },
    cleanup: async () => {
      await current.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
