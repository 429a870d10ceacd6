import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * Starts a tracer provider that exports over OTLP/HTTP when the standard `OTEL_EXPORTER_OTLP_*`
 * variables name an endpoint; the SDK's invoke hook then records each call's server span.
 */
export function startAgentTelemetry(
  env: Record<string, string | undefined>,
  serviceName: string,
): () => Promise<void> {
  const specific = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const generic = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const url = specific || (generic ? `${generic.replace(/\/$/, '')}/v1/traces` : '');
  if (url === '' || env.OTEL_SDK_DISABLED === 'true') return async () => {};
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 200 })],
  });
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
