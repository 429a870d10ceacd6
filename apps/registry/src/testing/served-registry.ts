import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReachConfigInput } from '@agent-reach/config';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach } from 'vitest';
import { registryConfigFrom } from '../config.js';
import { type RunningRegistry, startRegistry } from '../serve.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { captureLogger } from './test-registry.js';

/**
 * A registry served on a free loopback port (node:http fast paths and hono, or hono alone) over an embedded store
 * in a temporary directory, started before each test and stopped after it. `control_plane` is merged
 * into the config. Returns a getter for the running registry and its store.
 */
export function useServedRegistry(
  control_plane: ReachConfigInput['control_plane'] = {},
  /** `startRegistry`'s seam: false serves every request through hono. @default true */
  fastPaths = true,
): () => { running: RunningRegistry; store: EmbeddedStore } {
  let dir: string | undefined;
  let stopAll: (() => Promise<void>) | undefined;
  let served: { running: RunningRegistry; store: EmbeddedStore } | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-served-'));
    const clock = new ManualClock();
    const store = await openEmbeddedStore({ path: dir, clock });
    const started = await startRegistry({
      config: registryConfigFrom({ control_plane }),
      store,
      clock,
      logger: captureLogger().logger,
      listen: { host: '127.0.0.1', port: 0 },
      fastPaths,
    });
    served = { running: started, store };
    stopAll = async () => {
      await started.stop();
      await store.close();
    };
  });
  afterEach(async () => {
    await stopAll?.();
    if (dir) await rm(dir, { recursive: true, force: true });
    served = undefined;
  });
  return () => {
    if (!served) throw new Error('the served registry is not started (beforeEach failed?)');
    return served;
  };
}
