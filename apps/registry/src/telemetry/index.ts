import {
  type NamedWithSpan,
  type NamedWithSpanSync,
  withSpan as withAnySpan,
  withSpanSync as withAnySpanSync,
} from '@agent-reach/sdk/telemetry';
import type { SpanName } from './span-names.js';

/** OpenTelemetry for the registry: its span names and the SDK's span helper held to them. */
export { SPAN_NAMES, type SpanName, TRACER_NAME } from './span-names.js';

/** The SDK's span helper, held to the registry's closed set of span names. */
export const withSpan: NamedWithSpan<SpanName> = withAnySpan;

/** The SDK's synchronous span helper, held to the registry's span names (routing stays synchronous). */
export const withSpanSync: NamedWithSpanSync<SpanName> = withAnySpanSync;
