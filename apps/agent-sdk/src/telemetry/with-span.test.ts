import { SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { withSpan, withSpanSync } from './with-span.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('test');
afterAll(() => provider.shutdown());

describe('withSpan and withSpanSync', () => {
  it('end the span with the value, or with error status and the exception on a throw, alike', async () => {
    expect(withSpanSync(tracer, 'sync.ok', { attributes: { a: 1 } }, () => 7)).toBe(7);
    expect(() =>
      withSpanSync(tracer, 'sync.fail', {}, () => {
        throw new Error('sync boom');
      }),
    ).toThrow('sync boom');
    await expect(
      withSpan(tracer, 'async.fail', {}, async () => {
        throw new Error('async boom');
      }),
    ).rejects.toThrow('async boom');
    const spans = Object.fromEntries(exporter.getFinishedSpans().map((span) => [span.name, span]));
    expect(spans['sync.ok']!.status.code).toBe(SpanStatusCode.UNSET);
    expect(spans['sync.ok']!.attributes).toEqual({ a: 1 });
    for (const name of ['sync.fail', 'async.fail']) {
      expect(spans[name]!.status).toEqual({
        code: SpanStatusCode.ERROR,
        message: name.replace('.fail', ' boom'),
      });
      expect(spans[name]!.events.map((event) => event.name)).toEqual(['exception']);
    }
  });

  it('parents the work’s children on the span it opened', () => {
    withSpanSync(tracer, 'parent', {}, (_span, ctx) =>
      withSpanSync(tracer, 'child', { parent: ctx }, () => 0),
    );
    const spans = exporter.getFinishedSpans();
    const parent = spans.find((span) => span.name === 'parent')!;
    const child = spans.find((span) => span.name === 'child')!;
    expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });
});
