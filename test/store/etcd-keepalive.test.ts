import type http2 from 'node:http2';
import { EtcdUnaryClient, KeepAliveStream } from '@agent-reach/registry';
import { afterEach, describe, expect, it } from 'vitest';
import { useEtcd } from '../harness/use-etcd.js';

const cluster = useEtcd();

/** The registry's HTTP/2 etcd client, counting the keep-alive stream's writes. */
function countingTransport() {
  const client = new EtcdUnaryClient([cluster.etcd.endpoint], 5_000);
  const counts = { streams: 0, writes: 0 };
  const transport = {
    forgetToken: () => client.forgetToken(),
    openStream: async (path: string) => {
      const opened = await client.openStream(path);
      counts.streams++;
      const write = opened.stream.write.bind(opened.stream) as (chunk: Buffer) => boolean;
      (opened.stream as { write: (chunk: Buffer) => boolean }).write = (chunk: Buffer) => {
        counts.writes++;
        return write(chunk);
      };
      return opened as { stream: http2.ClientHttp2Stream; probe: () => void };
    },
  };
  return { client, counts, transport };
}

const opened: Array<{ client: EtcdUnaryClient; keepAlives: KeepAliveStream }> = [];
afterEach(() => {
  for (const { client, keepAlives } of opened.splice(0)) {
    keepAlives.close();
    client.close();
  }
});

function setUp(timeoutMs = 5_000) {
  const { client, counts, transport } = countingTransport();
  const keepAlives = new KeepAliveStream(transport, { timeoutMs });
  opened.push({ client, keepAlives });
  return { client, counts, keepAlives };
}

describe('KeepAliveStream (batched LeaseKeepAlive over HTTP/2) against a real etcd', () => {
  it('sends a burst of refreshes as one write, and answers each with its own lease’s TTL', async () => {
    const { client, counts, keepAlives } = setUp();
    const live = await Promise.all(Array.from({ length: 40 }, (_, i) => client.grantLease(30 + (i % 5))));
    const revoked = await Promise.all(Array.from({ length: 10 }, () => client.grantLease(30)));
    for (const lease of revoked) await cluster.raw.leaseClient.leaseRevoke({ ID: lease });
    const never = '7';
    // All in one event-loop turn: one batch. A lease asked twice shares one request and both get its TTL.
    const asked = [...live, ...revoked, never, live[0]!];
    const answers = await Promise.all(asked.map((lease) => keepAlives.refresh(lease)));
    expect(counts.streams).toBe(1);
    expect(counts.writes).toBe(1);
    live.forEach((_, i) => {
      // Each live lease gets its own TTL back (they were granted with 30..34 s).
      expect(answers[i]).toBe(30 + (i % 5));
    });
    expect(answers.slice(live.length, live.length + revoked.length)).toEqual(revoked.map(() => 0));
    expect(answers[live.length + revoked.length]).toBe(0);
    expect(answers.at(-1)).toBe(30);
    // etcd really refreshed the live leases.
    const ttl = await cluster.raw.leaseClient.leaseTimeToLive({ ID: live[4]! });
    expect(Number(ttl.TTL)).toBeGreaterThanOrEqual(33);
  });

  it('keeps one stream across batches, each batch one write', async () => {
    const { client, counts, keepAlives } = setUp();
    const leases = await Promise.all(Array.from({ length: 5 }, () => client.grantLease(30)));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(leases.map((lease) => keepAlives.refresh(lease)));
      expect(answers).toEqual(leases.map(() => 30));
    }
    expect(counts.streams).toBe(1);
    expect(counts.writes).toBe(3);
  });

  it('fails the refreshes of a stalled stream, then recovers on a new one', async () => {
    const { client, counts, keepAlives } = setUp(700);
    const lease = await client.grantLease(60);
    expect(await keepAlives.refresh(lease)).toBe(60);
    cluster.etcd.freeze();
    try {
      await expect(keepAlives.refresh(lease)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    } finally {
      cluster.etcd.thaw();
    }
    expect(await keepAlives.refresh(lease)).toBe(60);
    expect(counts.streams).toBe(2);
  });

  it('fails the refreshes of a broken stream (etcd killed), then recovers after etcd restarts', async () => {
    const { client, counts, keepAlives } = setUp();
    const lease = await client.grantLease(60);
    expect(await keepAlives.refresh(lease)).toBe(60);
    cluster.etcd.kill();
    await expect(keepAlives.refresh(lease)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await cluster.etcd.restart();
    // The lease outlived the restart (etcd persists leases): the new stream refreshes it.
    let ttl: number | undefined;
    for (let attempt = 0; attempt < 20 && ttl === undefined; attempt++) {
      ttl = await keepAlives.refresh(lease).catch(() => undefined);
      if (ttl === undefined) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(ttl).toBe(60);
    expect(counts.streams).toBeGreaterThanOrEqual(2);
  });

  it('fails pending and later refreshes once closed', async () => {
    const { client, keepAlives } = setUp();
    const lease = await client.grantLease(30);
    const pending = keepAlives.refresh(lease);
    keepAlives.close();
    await expect(pending).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(keepAlives.refresh(lease)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
