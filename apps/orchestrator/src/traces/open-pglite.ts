import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { EVENTS_CHANNEL, MIGRATIONS_FOLDER } from './migrations-folder.js';
import { TraceStore, type WallClock } from './trace-store.js';

/** Options for the embedded trace store. */
export interface PgliteTraceStoreOptions {
  /** Data directory (e.g. `<storage.path>/orchestrator-traces`); in memory when left out. */
  dataDir?: string;
  clock?: WallClock;
  /** @default the top-level migrations folder */
  migrationsFolder?: string;
}

/**
 * Opens the embedded trace store on PGlite: same schema and migrations as Postgres, and PGlite's own
 * LISTEN/NOTIFY pushes new events (it runs in this process, so that is all it needs).
 */
export async function openPgliteTraceStore(options: PgliteTraceStoreOptions = {}): Promise<TraceStore> {
  const client = options.dataDir === undefined ? await PGlite.create() : await PGlite.create(options.dataDir);
  try {
    return await pgliteTraceStore(client, { ...options, closeClient: true });
  } catch (cause) {
    await client.close().catch(() => undefined);
    throw cause;
  }
}

/**
 * A trace store on a PGlite instance the caller already has (migrations applied here); the store
 * closes the instance on `close()` only when `closeClient` is set.
 */
export async function pgliteTraceStore(
  client: PGlite,
  options: Omit<PgliteTraceStoreOptions, 'dataDir'> & { closeClient?: boolean } = {},
): Promise<TraceStore> {
  const db = drizzle({ client });
  await migrate(db, { migrationsFolder: options.migrationsFolder ?? MIGRATIONS_FOLDER });
  return new TraceStore({
    db,
    channel: EVENTS_CHANNEL,
    clock: options.clock,
    notifier: { listen: (channel, onNotify) => client.listen(channel, onNotify) },
    close: async () => {
      if (options.closeClient) await client.close();
    },
  });
}
