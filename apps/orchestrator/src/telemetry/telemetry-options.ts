import { compileTelemetryOptions as compileFor, type TelemetryOptions } from '@agent-reach/sdk/telemetry';

export type { TelemetryOptions } from '@agent-reach/sdk/telemetry';

/** The orchestrator's OTLP settings from the standard `OTEL_*` variables (service `agent-reach-orchestrator`). */
export function compileTelemetryOptions(env: Record<string, string | undefined>): TelemetryOptions {
  return compileFor(env, 'agent-reach-orchestrator');
}
