import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryProcess } from '../harness/registry-process.js';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();
let registry: RegistryProcess;
beforeAll(async () => {
  registry = await RegistryProcess.start({
    config: { storage: { type: 'etcd', etcd: { endpoints: [cluster.etcd.endpoint] } } },
  });
});
afterAll(async () => {
  await registry?.dispose();
});

describe('the registry process on etcd', () => {
  it('exits promptly on SIGTERM while etcd is down', async () => {
    const registered = await fetch(`${registry.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        declaration: {
          agent_name: 'summarizer-v2',
          domain: 'text_processing',
          capabilities: { summarize: { input: ['text'], output: ['summary'], serves: ['writing'] } },
          priority: 80,
          idempotent: true,
        },
        endpoint: { host: '127.0.0.1', port: 9100 },
        card_sha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      }),
    });
    expect(registered.status).toBe(201);
    cluster.etcd.kill();
    // Long enough for the watch to fail and back off before reconnecting: etcd3's retry timer is what
    // used to hold the process for seconds after its shutdown was done.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const started = performance.now();
    const exit = await registry.stop();
    const tookMs = performance.now() - started;
    expect(exit.signal).toBeNull();
    expect(tookMs).toBeLessThan(4_000);
    expect(registry.logs().some((line) => line.msg === 'registry shutting down')).toBe(true);
    await cluster.etcd.restart();
  });
});
