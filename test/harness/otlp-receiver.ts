import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/HTTP JSON carries it, with its service. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: number;
  attributes: Record<string, unknown>;
}

function attributeValue(v: Record<string, unknown>): unknown {
  return v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue ?? null;
}

/** An OTLP/HTTP receiver (`POST /v1/traces`, JSON) on 127.0.0.1, collecting every span. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  private server: Server | null = null;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (
          req.method === 'POST' &&
          req.url === '/v1/traces' &&
          (req.headers['content-type'] ?? '').includes('json')
        ) {
          this.collect(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
          return;
        }
        res.writeHead(415);
        res.end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private collect(body: {
    resourceSpans?: Array<{
      resource?: { attributes?: Array<{ key: string; value: Record<string, unknown> }> };
      scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
    }>;
  }): void {
    for (const rs of body.resourceSpans ?? []) {
      const service = String(
        attributeValue(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '',
      );
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          const attrs =
            (s.attributes as Array<{ key: string; value: Record<string, unknown> }> | undefined) ?? [];
          this.spans.push({
            service,
            traceId: String(s.traceId),
            spanId: String(s.spanId),
            parentSpanId: String(s.parentSpanId ?? ''),
            name: String(s.name),
            kind: Number(s.kind ?? 0),
            status: Number((s.status as { code?: number } | undefined)?.code ?? 0),
            attributes: Object.fromEntries(attrs.map((a) => [a.key, attributeValue(a.value)])),
          });
        }
      }
    }
  }
}
