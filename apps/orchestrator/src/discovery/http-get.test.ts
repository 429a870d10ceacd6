import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet } from './http-get.js';

describe('httpGet', () => {
  let server: Server;
  let base = '';
  let connections = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/ok') return res.end('{"status":"ok"}');
      if (req.url === '/chunked-huge') {
        res.write('x'.repeat(40_000));
        return res.end('x'.repeat(40_000));
      }
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 500);
      res.writeHead(302, { location: '/ok' }).end();
    });
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const limits = { timeoutMs: 300, maxBytes: 65_536 };

  it('reuses one kept-alive connection for requests in a row', async () => {
    const before = connections;
    for (let i = 0; i < 3; i++)
      expect(await httpGet(`${base}/ok`, limits)).toMatchObject({ ok: true, status: 200 });
    expect(connections).toBe(before + 1);
  });

  it('asks again on a new connection when the agent closed the kept one', async () => {
    expect((await httpGet(`${base}/ok`, limits)).ok).toBe(true);
    const before = connections;
    // Closed on the server's side, not yet noticed by the client: the next GET picks the dead socket.
    server.closeAllConnections();
    const res = await httpGet(`${base}/ok`, limits);
    expect(res.ok && res.body.toString()).toBe('{"status":"ok"}');
    expect(connections).toBe(before + 1);
  });

  it('cuts off a body past the limit, times out, and does not follow redirects', async () => {
    expect(await httpGet(`${base}/chunked-huge`, limits)).toMatchObject({ ok: false, failure: 'too_large' });
    expect(await httpGet(`${base}/slow`, limits)).toMatchObject({ ok: false, failure: 'timeout' });
    expect(await httpGet(`${base}/elsewhere`, limits)).toMatchObject({ ok: true, status: 302 });
    expect(await httpGet('http://127.0.0.1:9/ok', limits)).toMatchObject({
      ok: false,
      failure: 'unreachable',
    });
    expect(await httpGet('ftp://127.0.0.1/ok', limits)).toMatchObject({ ok: false, failure: 'unreachable' });
  });
});
