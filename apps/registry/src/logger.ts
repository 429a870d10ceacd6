import { processLogger } from '@agent-reach/sdk/node';
import type { Logger } from 'pino';
import type { LogLevel } from './config.js';

/** The registry's pino logger (JSON lines; pretty in a terminal). @default level `info`; `silent` for tests that only look at behaviour. */
export function registryLogger(level: LogLevel = 'info'): Logger {
  return processLogger('registry', { level });
}
