import { type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK, tracing } from '@opentelemetry/sdk-node';
import type { TelemetryOptions } from '../telemetry/telemetry-options.js';

/** The running OTel SDK: the tracer to use and how to flush and stop it. */
export interface Telemetry {
  tracer: Tracer;
  /** True when spans leave the process (an OTLP endpoint is set). */
  exporting: boolean;
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Starts the OTel Node SDK (it registers the process's global tracer provider: call it once, from a
 * process's main). Spans are always recorded so trace ids are real, and exported over OTLP/HTTP only
 * when an endpoint is configured. `tracerName` names the tracer the process's spans carry.
 */
export function startTelemetry(options: TelemetryOptions, tracerName: string): Telemetry {
  if (options.disabled) {
    return {
      tracer: trace.getTracer(tracerName),
      exporting: false,
      flush: async () => {},
      shutdown: async () => {},
    };
  }
  const processor =
    options.tracesUrl === null
      ? new tracing.NoopSpanProcessor()
      : new tracing.BatchSpanProcessor(
          new OTLPTraceExporter({ url: options.tracesUrl, headers: options.headers }),
          {
            scheduledDelayMillis: 500,
          },
        );
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    autoDetectResources: false,
    spanProcessors: [processor],
    // Empty lists keep the SDK from building log and metric exporters out of the environment.
    logRecordProcessors: [],
    metricReaders: [],
    instrumentations: [],
  });
  sdk.start();
  return {
    tracer: trace.getTracer(tracerName),
    exporting: options.tracesUrl !== null,
    flush: () => processor.forceFlush(),
    shutdown: () => sdk.shutdown(),
  };
}
