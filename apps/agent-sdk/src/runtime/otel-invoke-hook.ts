import { ROOT_CONTEXT, type SpanContext, SpanKind, TraceFlags, trace } from '@opentelemetry/api';
import { withSpan } from '../telemetry/index.js';
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
    const attributes = {
      'reach.request_id': info.requestId,
      'reach.capability': info.capability,
      ...(info.caller === undefined ? {} : { 'reach.caller': info.caller }),
    };
    return withSpan(
      trace.getTracer(tracerName),
      INVOKE_SPAN_NAME,
      { parent, kind: SpanKind.SERVER, attributes },
      run,
    );
  };
}
