import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { INVOKE_SPAN_NAME, otelInvokeHook, parseTraceparent } from './otel-invoke-hook.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
trace.setGlobalTracerProvider(provider);
afterAll(() => provider.shutdown());

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

describe('otelInvokeHook', () => {
  it('opens a SERVER span joined to the caller through traceparent', async () => {
    const hook = otelInvokeHook();
    const out = await hook(
      {
        requestId: 'r1',
        capability: 'writing',
        traceparent: `00-${TRACE}-${PARENT}-01`,
        caller: 'orchestrator',
      },
      async () => 42,
    );
    expect(out).toBe(42);
    const span = exporter.getFinishedSpans().find((s) => s.attributes['reach.request_id'] === 'r1')!;
    expect(span.name).toBe(INVOKE_SPAN_NAME);
    expect(span.spanContext().traceId).toBe(TRACE);
    expect(span.parentSpanContext?.spanId).toBe(PARENT);
    expect(span.kind).toBe(SpanKind.SERVER);
  });

  it('marks the span failed and rethrows when the handler throws', async () => {
    const hook = otelInvokeHook();
    await expect(
      hook(
        { requestId: 'r2', capability: 'writing', traceparent: undefined, caller: undefined },
        async () => {
          throw new Error('nope');
        },
      ),
    ).rejects.toThrow('nope');
    const span = exporter.getFinishedSpans().find((s) => s.attributes['reach.request_id'] === 'r2')!;
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('ignores malformed or all-zero traceparents', () => {
    expect(parseTraceparent('garbage')).toBeUndefined();
    expect(parseTraceparent(`00-${'0'.repeat(32)}-${PARENT}-01`)).toBeUndefined();
    expect(parseTraceparent(`ff-${TRACE}-${PARENT}-01`)).toBeUndefined();
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)).toMatchObject({
      traceId: TRACE,
      traceFlags: 0,
      isRemote: true,
    });
  });
});
