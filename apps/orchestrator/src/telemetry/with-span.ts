import { type NamedWithSpan, withSpan as withAnySpan } from '@agent-reach/sdk/telemetry';
import type { SpanName } from './span-names.js';

export { markSpanFailed, type SpanOptions } from '@agent-reach/sdk/telemetry';

/** The SDK's span helper, held to the orchestrator's closed set of span names. */
export const withSpan: NamedWithSpan<SpanName> = withAnySpan;
