import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { OtlpReceiver, type ReceivedSpan } from '../harness/otlp-receiver.js';
import { RegistryProcess } from '../harness/registry-process.js';

const otlp = new OtlpReceiver();
let registry: RegistryProcess;
let dir: string;

beforeAll(async () => {
  await otlp.start();
  dir = await mkdtemp(join(tmpdir(), 'reach-registry-otlp-'));
  registry = await RegistryProcess.start({
    config: { storage: { type: 'embedded', path: dir } },
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url },
  });
}, 90_000);

afterAll(async () => {
  await registry?.dispose();
  await otlp.stop();
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${registry.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const registration = (port: number, serves: string[]) => ({
  declaration: {
    agent_name: 'summarizer-v2',
    domain: 'text_processing',
    capabilities: { summarize: { input: ['text'], output: ['summary'], serves } },
    priority: 80,
  },
  endpoint: { host: '127.0.0.1', port },
  card_sha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
});

const spansNamed = (name: string): ReceivedSpan[] => otlp.spans.filter((span) => span.name === name);

describe('the registry process with OTLP export configured', () => {
  it('sends a span per registration and per route query, with their outcome', async () => {
    const registered = await post('/v1/agents', registration(9101, ['writing']));
    expect(registered.status).toBe(201);
    const { instance_id } = (await registered.json()) as { instance_id: string };
    expect((await post('/v1/agents', registration(9102, ['no_such_capability']))).status).toBe(422);
    // Through the fast path (`POST /v1/route` on node:http) and through hono alike: the span is the verb's.
    expect((await post('/v1/route', { operation: 'summarize' })).status).toBe(200);

    await pollUntil(
      () =>
        spansNamed('reach.register').length >= 2 && spansNamed('reach.route').length >= 1 ? true : undefined,
      15_000,
      () => `spans so far: ${JSON.stringify(otlp.spans.map((span) => span.name))}`,
      100,
    );
    const registers = spansNamed('reach.register');
    for (const span of [...registers, ...spansNamed('reach.route')])
      expect(span.service).toBe('agent-reach-registry');
    const ok = registers.find((span) => span.attributes['reach.instance_id'] === instance_id);
    expect(ok).toMatchObject({ status: 0, attributes: { 'reach.agent_name': 'summarizer-v2' } });
    const failed = registers.find((span) => span.attributes['reach.error_code'] === 'UNKNOWN_CAPABILITY');
    expect(failed?.status).toBe(2); // OTLP STATUS_CODE_ERROR
    const route = spansNamed('reach.route')[0]!;
    expect(route.attributes).toMatchObject({ 'reach.operation': 'summarize', 'reach.max_candidates': 3 });
    expect(typeof route.attributes['reach.cached']).toBe('boolean');
    const listening = registry.logs().find((line) => line.msg === 'registry listening');
    expect(listening?.otlp).toBe(`${otlp.url}/v1/traces`);
  });
});
