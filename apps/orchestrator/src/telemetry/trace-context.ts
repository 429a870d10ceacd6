import { randomBytes } from 'node:crypto';
import {
  type Context,
  isSpanContextValid,
  ROOT_CONTEXT,
  type SpanContext,
  TraceFlags,
  trace,
} from '@opentelemetry/api';

/** A 32-hex OpenTelemetry trace id, the trace store's id too. */
export const TRACE_ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * The trace id of `ctx`'s span. When no tracer provider is running the span is a no-op with an
 * all-zero id, so a random valid id is minted and carried in a non-recording span instead.
 */
export function ensureTraceContext(ctx: Context): { ctx: Context; traceId: string } {
  const span = trace.getSpan(ctx);
  const sc = span?.spanContext();
  if (sc !== undefined && isSpanContextValid(sc)) return { ctx, traceId: sc.traceId };
  const minted: SpanContext = {
    traceId: randomBytes(16).toString('hex'),
    spanId: randomBytes(8).toString('hex'),
    traceFlags: TraceFlags.NONE,
  };
  return { ctx: trace.setSpanContext(ctx ?? ROOT_CONTEXT, minted), traceId: minted.traceId };
}

/** The W3C `traceparent` header value for the span in `ctx`, or undefined when there is none. */
export function traceparentOf(ctx: Context): string | undefined {
  const sc = trace.getSpanContext(ctx);
  if (sc === undefined || !isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & TraceFlags.SAMPLED).toString(16)}`;
}
