import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConnectionLimits,
  connectionServerOptions,
  DEFAULT_CONNECTION_LIMITS,
  guardConnections,
} from './connection-guard.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(limits: Partial<ConnectionLimits>, handler: Parameters<typeof createServer>[1]) {
  const all = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  const server = createServer(connectionServerOptions(all), handler);
  const stats = guardConnections(server, all);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, stats };
}

function open(port: number): Promise<{ socket: Socket; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.push(socket);
    const started = performance.now();
    const closed = new Promise<number>((done) =>
      socket.once('close', () => done(performance.now() - started)),
    );
    socket.on('error', () => undefined);
    socket.resume();
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

describe('guardConnections', () => {
  it('closes a connection that sends nothing after the idle timeout and counts it', async () => {
    const { port, stats } = await serve({ idleTimeoutMs: 300, headerTimeoutMs: 5_000 }, (_req, res) =>
      res.end(),
    );
    const { closed } = await open(port);
    const lived = await closed;
    expect(lived).toBeGreaterThanOrEqual(250);
    expect(lived).toBeLessThan(2_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stats).toMatchObject({ open: 0, idleClosed: 1 });
  });

  it('counts a silent connection the header timeout closes (with a 408) as closed while idle', async () => {
    // The header timeout fires first here; under load it can also beat an idle timeout of the same length.
    const { port, stats } = await serve({ idleTimeoutMs: 5_000, headerTimeoutMs: 300 }, (_req, res) =>
      res.end(),
    );
    const { socket, closed } = await open(port);
    let reply = '';
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
    });
    const lived = await closed;
    expect(lived).toBeLessThan(2_000);
    expect(reply).toMatch(/^HTTP\/1\.1 408/);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stats).toMatchObject({ open: 0, idleClosed: 1 });
  });

  it('refuses connections past the cap and counts them', async () => {
    const { port, stats } = await serve({ maxConnections: 2 }, (_req, res) => res.end());
    await open(port);
    await open(port);
    const third = await open(port);
    await third.closed;
    expect(stats).toMatchObject({ open: 2, dropped: 1 });
  });

  it('never cuts a request in flight for being quiet', async () => {
    const { port } = await serve({ idleTimeoutMs: 200 }, (_req, res) => {
      setTimeout(() => res.end('late'), 600);
    });
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect([res.status, await res.text()]).toEqual([200, 'late']);
  });

  it('closes a kept-alive connection after its request limit', async () => {
    const { port } = await serve({ maxRequestsPerConnection: 2 }, (_req, res) => res.end('ok'));
    const { socket } = await open(port);
    let text = '';
    const answered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.split('HTTP/1.1 200').length === 3 && text.endsWith('ok')) resolve();
      });
    });
    const request = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
    socket.write(request);
    socket.write(request);
    await answered;
    const connections = [...text.matchAll(/^Connection: (\S+)/gim)].map((match) => match[1]!.toLowerCase());
    expect(connections).toEqual(['keep-alive', 'close']);
  });
});
