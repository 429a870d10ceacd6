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
const LEVELS: Level[] = ['debug', 'info', 'warn', 'error'];

/** A logger writing one JSON line per event to stderr, at `minLevel` and above. */
export function consoleLogger(name: string, minLevel: Level = 'info'): Logger {
  const threshold = LEVELS.indexOf(minLevel);
  const write = (level: Level) => (message: string, fields?: LogFields) => {
    if (LEVELS.indexOf(level) < threshold) return;
    const line = { time: new Date().toISOString(), level, name, msg: message, ...fields };
    process.stderr.write(`${JSON.stringify(line, errorReplacer)}\n`);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

// Errors have no enumerable fields, so JSON.stringify would print `{}`.
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { name: value.name, message: value.message, ...(code === undefined ? {} : { code }) };
  }
  return value;
}
