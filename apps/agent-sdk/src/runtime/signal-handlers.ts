import type { Logger } from './logger.js';

/**
 * On SIGTERM or SIGINT runs `stop`, then calls `exit(0)` (or `exit(1)` if stopping failed); a second
 * signal exits with 1 at once. Returns a function that removes the handlers.
 */
export function stopOnSignals(
  stop: () => Promise<void>,
  logger: () => Logger | undefined,
  exit: (code: number) => void,
): () => void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) return exit(1);
    signalled = true;
    logger()?.info('signal received; deregistering and draining', { signal });
    stop().then(
      () => exit(0),
      (error: unknown) => {
        logger()?.error('stop failed', { error });
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
