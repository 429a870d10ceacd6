import { type Logger, pino } from 'pino';
import type { LogLevel } from './config.js';

/** The registry's pino logger. @default level `info`; `silent` for tests that only look at behaviour. */
export function registryLogger(level: LogLevel = 'info'): Logger {
  return pino({ name: 'registry', level });
}
