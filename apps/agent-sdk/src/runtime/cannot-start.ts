import { isReachError } from '../protocol/index.js';
import { consoleLogger, type Logger } from './logger.js';

/**
 * Reports that an agent process cannot start — through pino on stderr, one JSON line like every other
 * log line (the error's code and message, so a bad declaration names its field) — and exits 1.
 */
export function exitCannotStart(error: unknown, logger: Logger = consoleLogger('agent')): never {
  const code = isReachError(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  logger.error(`cannot start: ${code}: ${message}`, { code });
  process.exit(1);
}
