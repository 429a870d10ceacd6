import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAgentCard, Declaration } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardDigest, httpCardFetcher } from './card-fetcher.js';

const cardBytes = Buffer.from(
  JSON.stringify(
    buildAgentCard(
      Declaration.parse({
        agent_name: 'writer',
        domain: 'text',
        capabilities: { write: { serves: ['writing'] } },
      }),
      { host: '127.0.0.1', port: 9000, scheme: 'http', alpn: ['http/1.1'] },
    ),
  ),
);

describe('httpCardFetcher', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/card') return res.end(cardBytes);
      if (req.url === '/huge') {
        res.write('{"pad":"');
        res.write('x'.repeat(100_000));
        return res.end('"}');
      }
      if (req.url === '/slow') return void setTimeout(() => res.end(cardBytes), 500);
      if (req.url === '/notjson') return res.end('<html>');
      if (req.url === '/notcard') return res.end('{"name":"x"}');
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const fetchCard = httpCardFetcher({ timeoutMs: 200, maxBytes: 65_536 });

  it('returns the card and the sha256 of the exact bytes', async () => {
    const res = await fetchCard(`${base}/card`);
    expect(res.ok && res.value.sha256).toBe(cardDigest(cardBytes));
    expect(res.ok && res.value.card.name).toBe('writer');
  });

  it.each([
    ['/huge', 'card_too_large'],
    ['/slow', 'card_timeout'],
    ['/notjson', 'card_invalid'],
    ['/notcard', 'card_invalid'],
    ['/missing', 'card_http_status'],
  ])('%s fails with %s', async (path, reason) => {
    const res = await fetchCard(`${base}${path}`);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.data?.reason).toBe(reason);
  });

  it('reports a refused connection as card_unreachable', async () => {
    const res = await fetchCard('http://127.0.0.1:9/card');
    expect(!res.ok && res.error.data?.reason).toBe('card_unreachable');
  });
});
