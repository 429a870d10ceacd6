import { startTelemetry as startSdk, type Telemetry } from '@agent-reach/sdk/otel';
import type { TelemetryOptions } from '@agent-reach/sdk/telemetry';

export type { Telemetry } from '@agent-reach/sdk/otel';

/** The tracer name the orchestrator's spans carry. */
export const TRACER_NAME = '@agent-reach/orchestrator';

/** Starts the OTel Node SDK for the orchestrator; called only from main. */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  return startSdk(options, TRACER_NAME);
}
