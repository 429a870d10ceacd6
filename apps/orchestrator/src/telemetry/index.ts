/** OpenTelemetry for the orchestrator: span names, the withSpan helper, trace context and SDK start. */
export { startTelemetry, type Telemetry, TRACER_NAME } from './otel.js';
export { SPAN_NAMES, type SpanName } from './span-names.js';
export { compileTelemetryOptions, type TelemetryOptions } from './telemetry-options.js';
export { ensureTraceContext, TRACE_ID_PATTERN, traceparentOf } from './trace-context.js';
export { markSpanFailed, type SpanOptions, withSpan } from './with-span.js';
