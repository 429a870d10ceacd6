import http2 from 'node:http2';
import net, { type AddressInfo } from 'node:net';
import { EtcdCallError, EtcdUnaryClient, GRPC_STATUS, type TxnOp } from '@agent-reach/registry';
import { describe, expect, it } from 'vitest';
import { freePort } from '../harness/ports.js';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();

const put = (key: string, value: string, lease?: string): TxnOp => ({
  request_put: { key: Buffer.from(key), value: Buffer.from(value), ...(lease ? { lease } : {}) },
});

/** An HTTP/2 server on loopback that answers every stream with `answer` (or never, when it is undefined). */
async function fakeServer(answer?: (stream: http2.ServerHttp2Stream) => void) {
  const server = http2.createServer();
  const streams: http2.ServerHttp2Stream[] = [];
  server.on('stream', (stream) => {
    streams.push(stream);
    stream.resume();
    stream.on('end', () => answer?.(stream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const stream of streams) stream.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP proxy to `target` that can freeze: its connections stay open but pass no byte either way. */
async function freezableProxy(target: string) {
  const { hostname, port } = new URL(target);
  let frozen = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    freeze: () => {
      frozen = true;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('EtcdUnaryClient (LeaseGrant and Txn over HTTP/2) against a real etcd', () => {
  it('grants a lease etcd knows, with the TTL asked', async () => {
    const client = new EtcdUnaryClient([cluster.etcd.endpoint], 5_000);
    try {
      const lease = await client.grantLease(42);
      expect(lease).toMatch(/^[1-9]\d*$/);
      const ttl = await cluster.raw.leaseClient.leaseTimeToLive({ ID: lease });
      expect(Number(ttl.grantedTTL)).toBe(42);
      expect(Number(ttl.TTL)).toBeGreaterThan(40);
      // Lease ids are 63-bit: they must survive as decimal strings, not as lossy numbers.
      expect(String(ttl.ID)).toBe(lease);
    } finally {
      client.close();
    }
  });

  it('commits puts under a lease and deletes in one transaction; the lease takes its keys with it', async () => {
    const client = new EtcdUnaryClient([cluster.etcd.endpoint], 5_000);
    try {
      await cluster.raw.put('/unary/old').value('x');
      const lease = await client.grantLease(30);
      const value = 'ü'.repeat(300);
      await client.txn([
        put('/unary/a', value, lease),
        put('/unary/b', '{"n":2}', lease),
        put('/unary/plain', 'no lease'),
        { request_delete_range: { key: Buffer.from('/unary/old') } },
      ]);
      expect(await cluster.raw.get('/unary/a').string()).toBe(value);
      expect(await cluster.raw.get('/unary/b').string()).toBe('{"n":2}');
      expect(await cluster.raw.get('/unary/old').string()).toBeNull();
      const a = await cluster.raw.get('/unary/a').exec();
      const b = await cluster.raw.get('/unary/b').exec();
      expect(a.header.revision).toBe(b.header.revision);
      expect(String(a.kvs[0]!.lease)).toBe(lease);
      expect(String((await cluster.raw.get('/unary/plain').exec()).kvs[0]!.lease)).toBe('0');
      await cluster.raw.leaseClient.leaseRevoke({ ID: lease });
      expect(await cluster.raw.get('/unary/a').string()).toBeNull();
      expect(await cluster.raw.get('/unary/plain').string()).toBe('no lease');
    } finally {
      client.close();
    }
  });

  it('refuses a whole transaction that names a missing lease, with etcd own words', async () => {
    const client = new EtcdUnaryClient([cluster.etcd.endpoint], 5_000);
    try {
      const lease = await client.grantLease(30);
      const failure = await client
        .txn([put('/unary/kept-out', 'x', lease), put('/unary/missing-lease', 'y', '12345')])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EtcdCallError);
      expect((failure as EtcdCallError).code).toBe(GRPC_STATUS.NOT_FOUND);
      expect(String(failure)).toMatch(/requested lease not found/);
      expect(await cluster.raw.get('/unary/kept-out').string()).toBeNull();
    } finally {
      client.close();
    }
  });

  it('goes on to the next endpoint, within the same call, when the first refuses connections', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const client = new EtcdUnaryClient([dead, cluster.etcd.endpoint], 5_000);
    try {
      // A member that is down costs its callers nothing: the call is sent to the next one.
      expect(await client.grantLease(10)).toMatch(/^[1-9]\d*$/);
      expect(await client.grantLease(10)).toMatch(/^[1-9]\d*$/);
    } finally {
      client.close();
    }
  });

  it('fails with UNAVAILABLE once every endpoint refused, trying each once', async () => {
    const dead = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`];
    const client = new EtcdUnaryClient(dead, 5_000);
    try {
      const failure = await client.grantLease(10).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EtcdCallError);
      expect((failure as EtcdCallError).code).toBe(GRPC_STATUS.UNAVAILABLE);
    } finally {
      client.close();
    }
  });

  it('drops a connection that went silent (half-open) and goes on to the next endpoint', async () => {
    const proxy = await freezableProxy(cluster.etcd.endpoint);
    const client = new EtcdUnaryClient([proxy.url, cluster.etcd.endpoint], 400);
    try {
      expect(await client.grantLease(10)).toMatch(/^[1-9]\d*$/);
      proxy.freeze();
      const failure = await client.grantLease(10).catch((error: unknown) => error);
      expect((failure as EtcdCallError).code).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
      // The ping sent after the timeout goes unanswered as well: the session is dropped, and a later
      // call reaches etcd through the second endpoint (without the drop, every call would time out).
      let lease: string | undefined;
      const deadline = performance.now() + 5_000;
      while (lease === undefined && performance.now() < deadline) {
        lease = await client.grantLease(10).catch(() => undefined);
      }
      expect(lease).toMatch(/^[1-9]\d*$/);
      expect(Number((await cluster.raw.leaseClient.leaseTimeToLive({ ID: lease! })).TTL)).toBeGreaterThan(0);
    } finally {
      client.close();
      await proxy.close();
    }
  });

  it('keeps working after etcd restarts, failing only while it is down', async () => {
    const client = new EtcdUnaryClient([cluster.etcd.endpoint], 2_000);
    try {
      await client.grantLease(10);
      cluster.etcd.kill();
      await expect(client.grantLease(10)).rejects.toBeInstanceOf(EtcdCallError);
      await cluster.etcd.restart();
      expect(await client.grantLease(10)).toMatch(/^[1-9]\d*$/);
    } finally {
      client.close();
    }
  });

  it('gives up after its deadline on a server that never answers', async () => {
    const server = await fakeServer();
    const client = new EtcdUnaryClient([server.url], 300);
    try {
      const started = performance.now();
      const failure = await client.grantLease(10).catch((error: unknown) => error);
      expect((failure as EtcdCallError).code).toBe(GRPC_STATUS.DEADLINE_EXCEEDED);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('reports a gRPC error status and its percent-encoded message', async () => {
    const server = await fakeServer((stream) => {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '8',
          'grpc-message': 'too%20busy',
        },
        { endStream: true },
      );
    });
    const client = new EtcdUnaryClient([server.url], 2_000);
    try {
      const failure = await client.txn([put('/x', 'y')]).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(EtcdCallError);
      expect((failure as EtcdCallError).code).toBe(8);
      expect(String(failure)).toContain('too busy');
    } finally {
      client.close();
      await server.close();
    }
  });

  it('refuses an answer that is not one gRPC message, and a grant without a lease id', async () => {
    let body = Buffer.from([1, 0, 0, 0, 1, 0]); // compressed flag set: not what was negotiated
    const server = await fakeServer((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(body);
    });
    const client = new EtcdUnaryClient([server.url], 2_000);
    try {
      await expect(client.grantLease(10)).rejects.toThrow(/malformed gRPC answer/);
      body = Buffer.from([0, 0, 0, 0, 0]); // an empty LeaseGrantResponse: ID 0
      await expect(client.grantLease(10)).rejects.toThrow(/no lease id/);
    } finally {
      client.close();
      await server.close();
    }
  });

  it('refuses calls once closed', async () => {
    const client = new EtcdUnaryClient([cluster.etcd.endpoint], 2_000);
    client.close();
    await expect(client.grantLease(10)).rejects.toThrow(/closed/);
  });
});
