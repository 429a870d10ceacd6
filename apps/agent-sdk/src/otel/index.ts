/**
 * Starting OpenTelemetry in a control-plane process: the OTel Node SDK with an OTLP/HTTP exporter, from
 * `TelemetryOptions` (`/telemetry`). Its own subpath, so code that only makes spans never loads the SDK.
 */
export { startTelemetry, type Telemetry } from './start-telemetry.js';
