import { setFlagsFromString } from 'node:v8';
import { startTelemetry } from '@agent-reach/sdk/otel';
import { loadRegistryConfig } from './config.js';
import { type DnsResponder, startRegistryDns } from './dns/index.js';
import { registryLogger } from './logger.js';
import { startRegistry } from './serve.js';
import { openStore } from './store/index.js';
import { TRACER_NAME } from './telemetry/index.js';

/**
 * How far each isolate's old space may grow past its live heap before the next full GC, by store
 * (V8's `--heap-growing-percent`; its default lets a large heap grow up to 4x). The embedded store
 * (`embedded` and `file`) 25 since session 20: at 100,000 instances the churn suite's RSS fell from
 * 496-513 to 398-407 MB and its DNS p99 from 8.9-10.7 to 5.5-5.8 ms, registrations alone no slower
 * (docs/registry.md, Memory).
 */
const HEAP_GROWING_PERCENT = { embedded: 25, file: 25, etcd: 100 } as const;

/** After a clean shutdown, the longest the process may linger before it exits anyway. */
const SHUTDOWN_LINGER_MS = 1_000;

/** The registry process: load config, open the store, serve, shut down cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadRegistryConfig(process.env);
  const logger = registryLogger(config.logLevel);
  const telemetry = startTelemetry(config.telemetry, TRACER_NAME);
  // Old-space growth before a full GC, for every isolate of the process (the responder thread's too),
  // instead of V8's up to 4x the live heap: 1.25x on the embedded store, 2x on etcd, whose grpc-js calls
  // leave garbage only full GCs free (docs/registry.md, Memory: heap growth).
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT[config.reach.storage.type]}`);
  const store = await openStore(config.reach.storage, {
    ...(config.etcdPassword === undefined ? {} : { etcdPassword: config.etcdPassword }),
    onError: (error) => logger.error({ err: error }, 'store background failure'),
  });
  let dns: DnsResponder | undefined;
  const running = await startRegistry({
    config,
    store,
    logger,
    processMetrics: true,
    // Spans only when they leave the process: otherwise routing and registration skip span work entirely.
    ...(telemetry.exporting ? { tracer: telemetry.tracer } : {}),
    beforeListen: async (registry) => {
      dns = await startRegistryDns(registry);
      logger.info({ dns: `${dns.host}:${dns.port}`, zone: config.zone }, 'dns responder listening');
    },
  });
  logger.info(
    { url: running.url, store: store.kind, zone: config.zone, otlp: config.telemetry.tracesUrl },
    'registry listening',
  );

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'registry shutting down');
    try {
      await dns?.stop();
      await running.stop();
      await store.close();
      await telemetry.shutdown();
    } catch (error) {
      logger.error({ err: error }, 'unclean shutdown');
      process.exitCode = 1;
    }
    logger.flush();
    // Everything is closed; only a library's retry timer could keep the process alive now (etcd3's
    // watch reconnect backoff waits seconds while etcd is down). Give stray work a moment, then exit.
    setTimeout(() => process.exit(), SHUTDOWN_LINGER_MS).unref();
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
}

main().catch((error: unknown) => {
  // A bad config or an unreachable store stops the process with the reason, not a stack trace.
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`registry: ${message}\n`);
  process.exit(1);
});
