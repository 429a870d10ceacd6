import { processLogger } from '../node/process-logger.js';

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The logger the runtime writes to; bring your own (pino, winston) through this shape. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

type Level = keyof Logger;

/** pino's call shape (fields first), for {@link fromPino}. */
export type PinoLike = Record<Level, (fields: LogFields, message: string) => void>;

/** The runtime's logger over a pino logger, so agents log in the same shape as the control plane. */
export function fromPino(logger: PinoLike): Logger {
  const at = (level: Level) => (message: string, fields?: LogFields) => logger[level](fields ?? {}, message);
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A pino logger writing to stderr at `minLevel` and above: JSON lines, or pretty in a terminal. */
export function consoleLogger(name: string, minLevel: Level = 'info'): Logger {
  return fromPino(processLogger(name, { level: minLevel, fd: 2 }));
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
