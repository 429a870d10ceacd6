import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import dnsPacket, { type DecodedPacket } from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';
import { handleMessage } from './packet-handler.js';
import { startRegistryDns } from './registry-dns.js';
import type { DnsResponderProcesses } from './responder-processes.js';

type Reply = DecodedPacket & { rcode: string; answers: { type: string; data: unknown }[] };

function ask(t: TestRegistry, name: string, type: string): Reply {
  const msg = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: type as 'A' }] });
  return dnsPacket.decode(handleMessage(t.registry.zone, msg, 'udp')!) as Reply;
}

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

describe('the registry zone', () => {
  it('publishes a registration at once, drops it on deregister, and serves GET /v1/zone', async () => {
    t = await startTestRegistry();
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const { instance_id, lease_token } = reply.body as { instance_id: string; lease_token: string };
    await settle();
    expect(ask(t, '_writing._tcp.agents.internal', 'SRV').answers).toMatchObject([
      { data: { port: 8001, priority: 10, weight: 80, target: `${instance_id}.agents.internal` } },
    ]);
    const zoneFile = await t.registry.app.request('/v1/zone');
    expect(zoneFile.status).toBe(200);
    expect(zoneFile.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await zoneFile.text();
    expect(text).toContain(`${instance_id}.agents.internal.\t15\tIN\tA\t127.0.0.1`);
    expect(text).toContain(
      `_summarize._a2a._agents.agents.internal.\t15\tIN\tSVCB\t10 ${instance_id}.agents.internal.`,
    );

    const gone = await call(
      t.registry.app,
      'DELETE',
      `/v1/agents/${instance_id}`,
      undefined,
      bearer(lease_token),
    );
    expect(gone.status).toBeLessThan(300);
    await settle();
    expect(ask(t, `${instance_id}.agents.internal`, 'A').rcode).toBe('NXDOMAIN');
    expect(ask(t, '_writing._tcp.agents.internal', 'SRV').rcode).toBe('NXDOMAIN');
  });

  it('drops an instance from every answer once its lease expires', async () => {
    t = await startTestRegistry();
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8002));
    const { instance_id } = reply.body as { instance_id: string };
    await settle();
    expect(ask(t, `${instance_id}.agents.internal`, 'A').answers).toHaveLength(1);
    await t.advance(20_000);
    for (const [name, type] of [
      [`${instance_id}.agents.internal`, 'A'],
      [`${instance_id}.agents.internal`, 'UNKNOWN_64'],
      ['_summarize._a2a._agents.agents.internal', 'UNKNOWN_64'],
      ['_agent._tcp.agents.internal', 'SRV'],
    ] as const) {
      expect(ask(t, name, type).rcode, name).toBe('NXDOMAIN');
    }
  });

  it.each([false, true])(
    'starts the responder on dns.listen with a free port (responder_thread: %s)',
    async (thread) => {
      t = await startTestRegistry({ config: { dns: { listen: '127.0.0.1:0', responder_thread: thread } } });
      const responder = await startRegistryDns(t.registry);
      try {
        expect(responder.host).toBe('127.0.0.1');
        expect(responder.port).toBeGreaterThan(0);
        // Only the thread mode hands back the worker it answers from.
        expect('worker' in responder).toBe(thread);
        const query = dnsPacket.encode({
          type: 'query',
          id: 9,
          questions: [{ name: 'agents.internal', type: 'SOA' }],
        });
        const socket = createSocket('udp4');
        const answer = await new Promise<Buffer>((resolve) => {
          socket.once('message', resolve);
          socket.send(query, responder.port, '127.0.0.1');
        });
        socket.close();
        expect((dnsPacket.decode(answer) as Reply).answers[0]!.type).toBe('SOA');
      } finally {
        await responder.stop();
      }
    },
  );

  it('answers as dns.responder_processes child processes, over UDP and TCP, and stops them with it', async () => {
    t = await startTestRegistry({ config: { dns: { listen: '127.0.0.1:0', responder_processes: 2 } } });
    expect((await call(t.registry.app, 'POST', '/v1/agents', registerBody(8003))).status).toBe(201);
    const responder = await startRegistryDns(t.registry);
    const pids = (responder as DnsResponderProcesses).pids();
    expect(pids).toHaveLength(2);
    // The processes hold the only encoded zone, and GET /v1/zone is exported from one of them.
    expect(t.registry.zone.laidOut).toBe(false);
    const zoneFile = await (await t.registry.app.request('/v1/zone')).text();
    expect(zoneFile).toMatch(/IN\s+SRV\s+\d+\s+\d+\s+8003\s/);
    expect(t.registry.zone.laidOut).toBe(false);
    // The processes answer from the registry's zone: SOA at the apex.
    for (const transport of ['+notcp', '+tcp']) {
      const ran = spawnSync('/usr/bin/dig', [
        '@127.0.0.1',
        '-p',
        String(responder.port),
        transport,
        '+short',
        'agents.internal',
        'SOA',
      ]);
      expect(`${transport} ${ran.stdout.toString()}`).toMatch(/^\S+ ns\.agents\.internal\. /);
    }
    await responder.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
