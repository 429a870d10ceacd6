import { destination, type Logger, pino, stdSerializers } from 'pino';
import pretty from 'pino-pretty';

/** How a process logs. */
export interface ProcessLoggerOptions {
  /** pino level. @default 'info' */
  level?: string;
  /** 1 (stdout) or 2 (stderr). @default 1 */
  fd?: 1 | 2;
  /** Human-readable lines (pino-pretty); one JSON object per line otherwise. @default whether `fd` is a terminal */
  pretty?: boolean;
}

/**
 * The one logger every Agent Reach process uses: pino, pretty in a terminal, JSON lines otherwise
 * (so `pnpm start`, a log shipper or `jq` read one shape from every process).
 */
export function processLogger(name: string, options: ProcessLoggerOptions = {}): Logger {
  const fd = options.fd ?? 1;
  const terminal = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  const settings = {
    name,
    level: options.level ?? 'info',
    // `error` fields (the SDK's) print like pino's `err`: message, code and stack, not `{}`.
    serializers: { err: stdSerializers.err, error: stdSerializers.err },
  };
  if (options.pretty ?? terminal)
    return pino(
      settings,
      pretty({
        colorize: terminal,
        sync: true,
        destination: fd,
        translateTime: 'HH:MM:ss.l',
        ignore: 'pid,hostname',
        singleLine: true,
      }),
    );
  return pino(settings, destination({ dest: fd, sync: true }));
}
