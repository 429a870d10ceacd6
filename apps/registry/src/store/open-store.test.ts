import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReachConfig } from '@agent-reach/config';
import { describe, expect, it } from 'vitest';
import { openStore } from './open-store.js';

describe('openStore', () => {
  it('opens the embedded store for `embedded` and the seed name `file`', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-open-store-'));
    try {
      for (const type of ['embedded', 'file'] as const) {
        const { storage } = ReachConfig.parse({ storage: { type, path: join(dir, type, 'registry.json') } });
        const store = await openStore(storage);
        expect(store.kind).toBe('embedded');
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('opens etcd for `etcd`, and says so when etcd does not answer', async () => {
    const { storage } = ReachConfig.parse({
      storage: { type: 'etcd', etcd: { endpoints: ['http://127.0.0.1:1'] } },
    });
    await expect(openStore(storage, { onError: () => undefined })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringContaining('127.0.0.1:1'),
    });
  });
});
