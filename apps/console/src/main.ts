import { processLogger } from '@agent-reach/sdk/node';
import { isReachError } from '@agent-reach/sdk/protocol';
import { loadConsoleConfig } from './config.js';
import { ConsoleMetrics, startConsole } from './server/index.js';

/** The console process: load config, serve, shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConsoleConfig(process.env);
  const logger = processLogger('console', { level: config.logLevel });
  const running = await startConsole(config, {
    metrics: new ConsoleMetrics(true),
    log: ({ err, ...fields }, message) => {
      // An API that is down is expected in development: one line naming it, no stack.
      if (fields.code === 'UNAVAILABLE')
        logger.warn({ ...fields, reason: (err as Error)?.message ?? String(err) }, 'proxy request failed');
      else logger.error({ err, ...fields }, message);
    },
  });
  logger.info(
    {
      url: running.url,
      registry: config.registryUrl,
      orchestrator: config.orchestratorUrl,
      jaeger: config.jaegerUrl,
    },
    'console listening',
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    logger.info('console shutting down');
    await running.stop();
    logger.flush();
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
}

main().catch((error: unknown) => {
  // A bad config or a taken port stops the process with the reason, not a stack trace.
  const message = isReachError(error)
    ? `${error.code}: ${error.message}`
    : String((error as Error)?.message ?? error);
  process.stderr.write(`console: ${message}\n`);
  process.exit(1);
});
