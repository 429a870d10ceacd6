import { fileURLToPath } from 'node:url';

/** The top-level `migrations/` folder drizzle-kit writes and both drivers apply. */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../../../migrations', import.meta.url));

/** The default notification channel for new events. */
export const EVENTS_CHANNEL = 'reach_trace_events';
