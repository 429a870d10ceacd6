import { isReachError } from '@agent-reach/sdk/protocol';
import { loadConsoleConfig } from './config.js';
import { startConsole } from './server/index.js';

/** The console process: load config, serve, shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConsoleConfig(process.env);
  const running = await startConsole(config, {
    log: (fields, message) => {
      const err = fields.err instanceof Error ? (fields.err.stack ?? fields.err.message) : String(fields.err);
      process.stderr.write(`${JSON.stringify({ level: 'error', msg: message, ...fields, err })}\n`);
    },
  });
  process.stdout.write(
    `${JSON.stringify({ msg: 'console listening', url: running.url, registry: config.registryUrl, orchestrator: config.orchestratorUrl })}\n`,
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await running.stop();
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
