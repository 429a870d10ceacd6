import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTelemetry, type Telemetry } from './otel.js';
import { compileTelemetryOptions } from './telemetry-options.js';
import { ensureTraceContext, traceparentOf } from './trace-context.js';
import { withSpan } from './with-span.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  status?: { code?: number };
}

describe('startTelemetry with an OTLP/HTTP receiver', () => {
  let server: Server;
  let telemetry: Telemetry;
  const spans: OtlpSpan[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/traces') {
          const json = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
          for (const rs of json.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    telemetry = startTelemetry(
      compileTelemetryOptions({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }),
    );
  });
  afterAll(async () => {
    await telemetry.shutdown();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('exports nested spans with their parents and the error status of a throw', async () => {
    let traceId = '';
    let traceparent: string | undefined;
    await withSpan(telemetry.tracer, 'reach.run', {}, async (_run, runCtx) => {
      traceId = ensureTraceContext(runCtx).traceId;
      await withSpan(telemetry.tracer, 'reach.layer', { parent: runCtx }, async (_l, layerCtx) => {
        traceparent = traceparentOf(layerCtx);
        await withSpan(telemetry.tracer, 'reach.node', { parent: layerCtx }, async () => {
          throw new Error('boom');
        }).catch(() => {});
      });
    });
    await telemetry.flush();
    const byName = Object.fromEntries(spans.filter((s) => s.traceId === traceId).map((s) => [s.name, s]));
    expect(Object.keys(byName).sort()).toEqual(['reach.layer', 'reach.node', 'reach.run']);
    expect(byName['reach.run']!.parentSpanId ?? '').toBe('');
    expect(byName['reach.layer']!.parentSpanId).toBe(byName['reach.run']!.spanId);
    expect(byName['reach.node']!.parentSpanId).toBe(byName['reach.layer']!.spanId);
    expect(byName['reach.node']!.status?.code).toBe(SpanStatusCode.ERROR);
    expect(traceparent).toBe(`00-${traceId}-${byName['reach.layer']!.spanId}-01`);
  });
});

describe('compileTelemetryOptions', () => {
  it('uses the traces endpoint as is and appends /v1/traces to the generic one', () => {
    expect(compileTelemetryOptions({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' }).tracesUrl).toBe(
      'http://c:4318/v1/traces',
    );
    expect(
      compileTelemetryOptions({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x',
      }).tracesUrl,
    ).toBe('http://t/x');
    expect(compileTelemetryOptions({}).tracesUrl).toBeNull();
  });

  it('rejects a malformed endpoint with INVALID_CONFIG naming the key', () => {
    expect(() => compileTelemetryOptions({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it('parses headers', () => {
    expect(compileTelemetryOptions({ OTEL_EXPORTER_OTLP_HEADERS: 'a=1, b=x%20y' }).headers).toEqual({
      a: '1',
      b: 'x y',
    });
  });
});

describe('ensureTraceContext without a provider', () => {
  it('mints a valid 32-hex trace id and a traceparent', async () => {
    const { ctx, traceId } = ensureTraceContext(ROOT_CONTEXT);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceparentOf(ctx)).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-00$`));
  });
});
