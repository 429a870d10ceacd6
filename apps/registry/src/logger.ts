import { type Level, type Logger, pino } from 'pino';

/** The registry's pino logger. @default level `info`; `silent` for tests that only look at behaviour. */
export function registryLogger(level: Level | 'silent' = 'info'): Logger {
  return pino({ name: 'registry', level });
}
