import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '@agent-reach/sdk/clock';
import { takePidLock } from '@agent-reach/sdk/node';
import { ReachError } from '@agent-reach/sdk/protocol';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { EVENTS_CHANNEL, MIGRATIONS_FOLDER } from './migrations-folder.js';
import { TraceStore } from './trace-store.js';

/** Options for the embedded trace store. */
export interface PgliteTraceStoreOptions {
  /** Data directory (e.g. `<storage.path>/orchestrator-traces`); in memory when left out. */
  dataDir?: string;
  clock?: Pick<Clock, 'wallNow'>;
  /** @default the top-level migrations folder */
  migrationsFolder?: string;
}

/**
 * Opens the embedded trace store on PGlite: same schema and migrations as Postgres, and PGlite's own
 * LISTEN/NOTIFY pushes new events (it runs in this process, so that is all it needs).
 */
export async function openPgliteTraceStore(options: PgliteTraceStoreOptions = {}): Promise<TraceStore> {
  const { dataDir } = options;
  if (dataDir === undefined)
    return pgliteTraceStore(await PGlite.create(), { ...options, closeClient: true });
  // PGlite takes no lock of its own: two processes on one directory lose writes or corrupt it. The
  // lock sits beside the directory, since PGlite will not initialise a directory holding other files.
  mkdirSync(dirname(dataDir), { recursive: true });
  const release = takePidLock(`${dataDir}.lock`, `trace data directory ${dataDir}`);
  let client: PGlite;
  try {
    client = await PGlite.create(dataDir);
  } catch (cause) {
    release();
    throw new ReachError(
      'STORE_UNAVAILABLE',
      `cannot open the PGlite trace data in ${dataDir} (${cause instanceof Error ? cause.message : String(cause)}); if it is damaged, move it aside to start with an empty one`,
      { cause },
    );
  }
  try {
    return await pgliteTraceStore(client, { ...options, closeClient: true, afterClose: release });
  } catch (cause) {
    await client.close().catch(() => undefined);
    release();
    throw cause;
  }
}

/**
 * A trace store on a PGlite instance the caller already has (migrations applied here); the store
 * closes the instance on `close()` only when `closeClient` is set.
 */
export async function pgliteTraceStore(
  client: PGlite,
  options: Omit<PgliteTraceStoreOptions, 'dataDir'> & {
    closeClient?: boolean;
    /** Runs once the store (and the instance, with `closeClient`) is closed. */
    afterClose?: () => void;
  } = {},
): Promise<TraceStore> {
  const db = drizzle({ client });
  await migrate(db, { migrationsFolder: options.migrationsFolder ?? MIGRATIONS_FOLDER });
  return new TraceStore({
    db,
    channel: EVENTS_CHANNEL,
    clock: options.clock,
    notifier: { listen: (channel, onNotify) => client.listen(channel, onNotify) },
    close: async () => {
      try {
        if (options.closeClient) await client.close();
      } finally {
        options.afterClose?.();
      }
    },
  });
}
