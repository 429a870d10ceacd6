import { type SpanOptions, withSpan as withAnySpan } from '@agent-reach/sdk/telemetry';
import type { Context, Span, Tracer } from '@opentelemetry/api';
import type { SpanName } from './span-names.js';

export { markSpanFailed, type SpanOptions } from '@agent-reach/sdk/telemetry';

/** The SDK's span helper, held to the orchestrator's closed set of span names. */
export const withSpan: <T>(
  tracer: Tracer,
  name: SpanName,
  options: SpanOptions,
  fn: (span: Span, ctx: Context) => Promise<T>,
) => Promise<T> = withAnySpan;
