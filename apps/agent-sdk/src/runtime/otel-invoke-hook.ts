import {
  context,
  ROOT_CONTEXT,
  type SpanContext,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import type { InvokeHook } from './invoke-context.js';

/** The name of the agent's server span for one invoke. */
export const INVOKE_SPAN_NAME = 'reach.agent.invoke';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The remote parent in a W3C `traceparent` header, or undefined when it is absent or invalid. */
export function parseTraceparent(header: string | undefined): SpanContext | undefined {
  const m = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (m === null || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return {
    traceId: m[2]!,
    spanId: m[3]!,
    traceFlags: Number.parseInt(m[4]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  };
}

/**
 * An invoke hook that opens a SERVER span per call, joined to the caller's trace through
 * `traceparent`. It uses only `@opentelemetry/api`: spans go wherever the process's provider sends
 * them, and nowhere (at no cost) when the process starts none.
 */
export function otelInvokeHook(tracerName = '@agent-reach/sdk'): InvokeHook {
  return async (info, run) => {
    const remote = parseTraceparent(info.traceparent);
    const parent = remote === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, remote);
    const span = trace.getTracer(tracerName).startSpan(
      INVOKE_SPAN_NAME,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'reach.request_id': info.requestId,
          'reach.capability': info.capability,
          ...(info.caller === undefined ? {} : { 'reach.caller': info.caller }),
        },
      },
      parent,
    );
    try {
      return await context.with(trace.setSpan(parent, span), run);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) });
      throw error;
    } finally {
      span.end();
    }
  };
}
