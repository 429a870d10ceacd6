import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ReachConfigInput } from '@agent-reach/config';
import { ManualClock } from '@agent-reach/sdk/testing';
import { pino } from 'pino';
import { registryConfigFrom } from '../config.js';
import { createRegistry, type Registry, type RegistryOptions } from '../registry.js';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';

/** Lets queued watch deliveries (setImmediate) and promise chains run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A pino logger that records every line as an object. */
export function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

/** A registry on an embedded store in a temporary directory, driven by a manual clock. */
export interface TestRegistry {
  registry: Registry;
  store: EmbeddedStore;
  clock: ManualClock;
  dir: string;
  logs: Array<Record<string, unknown>>;
  /** Moves monotonic time in steps, letting timers, watches and sweeps run between steps. */
  advance(ms: number, stepMs?: number): Promise<void>;
  /** Stops the registry and closes the store, keeping the directory (for restart tests). */
  stop(): Promise<void>;
  /** Reopens store and registry on the same directory and clock. */
  restart(): Promise<TestRegistry>;
  /** Stops everything and removes the directory. */
  cleanup(): Promise<void>;
}

export async function startTestRegistry(
  options: {
    config?: ReachConfigInput;
    env?: Record<string, string>;
    dir?: string;
    clock?: ManualClock;
  } & Pick<RegistryOptions, 'routes' | 'sweep' | 'prober'> = {},
): Promise<TestRegistry> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'reach-registry-')));
  const clock = options.clock ?? new ManualClock();
  const config = registryConfigFrom(options.config ?? {}, options.env ?? {});
  const store = await openEmbeddedStore({ path: dir, clock });
  const { logger, lines } = captureLogger();
  const registry = await createRegistry({
    config,
    store,
    clock,
    logger,
    replicaId: 'test-replica',
    ...(options.routes ? { routes: options.routes } : {}),
    ...(options.sweep === undefined ? {} : { sweep: options.sweep }),
    ...(options.prober ? { prober: options.prober } : {}),
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await registry.close();
    await store.close();
  };
  const self: TestRegistry = {
    registry,
    store,
    clock,
    dir,
    logs: lines,
    async advance(ms, stepMs = 250) {
      for (let moved = 0; moved < ms; moved += stepMs) {
        clock.advance(Math.min(stepMs, ms - moved));
        await settle();
      }
    },
    stop,
    async restart() {
      await stop();
      return startTestRegistry({ ...options, dir, clock });
    },
    async cleanup() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return self;
}
