import type { Clock } from '@agent-reach/sdk/clock';
import { ReachError } from '@agent-reach/sdk/protocol';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { EVENTS_CHANNEL, MIGRATIONS_FOLDER } from './migrations-folder.js';
import { TraceStore } from './trace-store.js';

/** Options for the Postgres trace store. */
export interface PostgresTraceStoreOptions {
  url: string;
  /** Put the tables in this schema (created if missing) instead of `public`; tests use one per run. */
  schema?: string;
  /** Pool size. @default 10 */
  max?: number;
  clock?: Pick<Clock, 'wallNow'>;
  /** @default the top-level migrations folder */
  migrationsFolder?: string;
}

/** The advisory lock key migrations run under (any fixed number, shared by every orchestrator). */
const MIGRATION_LOCK = 7_265_616_368;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,40}$/;

/**
 * Opens the trace store on Postgres through postgres.js: applies the migrations, and pushes new
 * events with LISTEN/NOTIFY (one listening connection per store).
 */
export async function openPostgresTraceStore(options: PostgresTraceStoreOptions): Promise<TraceStore> {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new ReachError('INVALID_CONFIG', `schema must match ${SCHEMA_NAME}`, { data: { schema } });
  }
  const sql = postgres(options.url, {
    max: options.max ?? 10,
    onnotice: () => undefined,
    ...(schema === undefined ? {} : { connection: { search_path: schema } }),
  });
  try {
    if (schema !== undefined) await sql`create schema if not exists ${sql(schema)}`;
    const db = drizzle({ client: sql });
    // Several orchestrators share one database and may start together: one migrates at a time.
    const lock = await sql.reserve();
    try {
      await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await migrate(db, {
        migrationsFolder: options.migrationsFolder ?? MIGRATIONS_FOLDER,
        ...(schema === undefined ? {} : { migrationsSchema: schema }),
      });
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => undefined);
      lock.release();
    }
    return new TraceStore({
      db,
      channel: schema === undefined ? EVENTS_CHANNEL : `${EVENTS_CHANNEL}_${schema}`,
      clock: options.clock,
      notifier: {
        listen: async (channel, onNotify) => {
          const { unlisten } = await sql.listen(channel, onNotify);
          return unlisten;
        },
      },
      close: () => sql.end({ timeout: 5 }),
    });
  } catch (cause) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    if (unreachable(cause)) {
      throw new ReachError(
        'STORE_UNAVAILABLE',
        `cannot reach Postgres for the trace store at ${redact(options.url)}`,
        {
          cause,
        },
      );
    }
    throw cause;
  }
}

// Network failures or a refused login (28xxx) / database (3D000); drizzle nests the driver error in `cause`.
function unreachable(cause: unknown): boolean {
  for (let e = cause, depth = 0; e !== null && typeof e === 'object' && depth < 5; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || code.startsWith('28'))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'CONNECT_TIMEOUT',
  '3D000',
]);

const redact = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');
