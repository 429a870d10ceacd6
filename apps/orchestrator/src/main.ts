import { processLogger } from '@agent-reach/sdk/node';
import { loadOrchestratorConfig } from './config.js';
import { startOrchestrator } from './serve.js';
import { startTelemetry } from './telemetry/index.js';

/** The orchestrator process: config, OTel, store, index, planner, API; SIGTERM/SIGINT stop it cleanly. */
async function main(): Promise<void> {
  const config = loadOrchestratorConfig(process.env);
  const logger = processLogger('orchestrator', { level: config.logLevel });
  const telemetry = startTelemetry(config.telemetry);
  const running = await startOrchestrator(config, { telemetry, logger });
  logger.info(
    {
      url: running.url,
      store: config.databaseUrl === null ? 'pglite' : 'postgres',
      dns: config.dnsServer,
      otlp: config.telemetry.tracesUrl,
    },
    'orchestrator listening',
  );
  // One machine-readable line for scripts that start it on port 0.
  process.stdout.write(`${JSON.stringify({ ready: { url: running.url } })}\n`);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'orchestrator shutting down');
    try {
      await running.stop();
      await telemetry.shutdown();
    } catch (error) {
      logger.error({ err: error }, 'unclean shutdown');
      process.exitCode = 1;
    }
    logger.flush();
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  // A bad config or an unreachable store stops the process with the reason, not a stack trace.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`orchestrator: ${message}\n`);
  process.exit(1);
});
