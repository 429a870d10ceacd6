import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeUpstream } from '../testing/fake-upstream.js';
import { startConsole } from './serve.js';

let upstream: FakeUpstream;
/** Resolves when the upstream sees its SSE client go away. */
let upstreamClosed: Promise<void>;

beforeAll(async () => {
  let closed!: () => void;
  upstreamClosed = new Promise((resolve) => {
    closed = resolve;
  });
  upstream = await FakeUpstream.start((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: {}\n\n');
    res.on('close', () => closed());
  });
});

afterAll(async () => {
  await upstream.stop();
});

const listen = { host: '127.0.0.1', port: 0 };

describe('startConsole', () => {
  it('closes the upstream stream when the browser goes away', async () => {
    const running = await startConsole({
      listen,
      registryUrl: upstream.url,
      orchestratorUrl: upstream.url,
      jaegerUrl: null,
    });
    try {
      const abort = new AbortController();
      const res = await fetch(`${running.url}/api/stream/x`, { signal: abort.signal });
      const reader = res.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('id: 1\ndata: {}\n\n');
      abort.abort();
      await upstreamClosed;
    } finally {
      await running.stop(100);
    }
  });

  it('stops even while an SSE stream is open, after the grace period', async () => {
    const running = await startConsole({
      listen,
      registryUrl: upstream.url,
      orchestratorUrl: upstream.url,
      jaegerUrl: null,
    });
    const res = await fetch(`${running.url}/api/stream/y`);
    const reader = res.body!.getReader();
    await reader.read();
    const t0 = performance.now();
    await running.stop(200);
    expect(performance.now() - t0).toBeLessThan(5000);
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow();
  });
});
