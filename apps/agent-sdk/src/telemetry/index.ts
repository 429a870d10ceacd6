/**
 * The one span helper (a span per call that records a throw as error status and always ends), and where
 * spans go from the standard `OTEL_*` settings. Starting the OTel SDK itself is `/otel`.
 */
export { compileTelemetryOptions, type TelemetryOptions } from './telemetry-options.js';
export {
  markSpanFailed,
  type NamedWithSpan,
  type NamedWithSpanSync,
  type SpanOptions,
  withSpan,
  withSpanSync,
} from './with-span.js';
