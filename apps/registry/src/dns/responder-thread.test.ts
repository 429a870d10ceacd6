import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import dnsPacket from 'dns-packet';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import type { DnsResponder } from './responder.js';
import { startDnsResponderThread } from './responder-thread.js';
import { RESPONDER_THREAD_NAME } from './responder-worker.js';
import { Zone } from './zone.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };

/** SRV ports at `name`, asked over UDP from this thread. */
function srvPorts(port: number, name: string): Promise<number[]> {
  const socket = createSocket('udp4');
  const query = dnsPacket.encode({ type: 'query', id: 7, questions: [{ name, type: 'SRV' }] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no UDP answer')), 2000);
    socket.once('message', (reply) => {
      clearTimeout(timer);
      socket.close();
      const answers = dnsPacket.decode(reply).answers ?? [];
      resolve(answers.map((rr) => (rr as { data: { port: number } }).data.port));
    });
    socket.send(query, port, '127.0.0.1');
  });
}

let responder: DnsResponder | undefined;
afterEach(async () => {
  await responder?.stop();
  responder = undefined;
});

describe('startDnsResponderThread', () => {
  it('answers from its own thread while this thread is blocked', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('alpha-1', { capabilities: ['summarize'], port: 8001 }));
    responder = await startDnsResponderThread({ zone: new Zone(source, options), port: 0 });
    const port = responder.port;
    // dig runs in its own process and gives up after one second without an answer.
    const answered = new Promise<string>((resolve, reject) =>
      execFile(
        '/usr/bin/dig',
        [
          '@127.0.0.1',
          '-p',
          String(port),
          '+tries=1',
          '+timeout=1',
          '+short',
          '_summarize._tcp.agents.internal',
          'SRV',
        ],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      // Busy: no timer, socket or message callback runs on this thread.
    }
    expect((await answered).trim()).toBe('10 50 8001 alpha-1.agents.internal.');
  });

  it('serves registrations and removals made after it started (the lag itself is a benchmark figure: pnpm bench churn)', async () => {
    const source = new FakeInstanceSource();
    const zone = new Zone(source, options);
    responder = await startDnsResponderThread({ zone, port: 0 });
    const port = responder.port;
    const name = '_plan._tcp.agents.internal';
    expect(await srvPorts(port, name)).toEqual([]);
    const started = performance.now();
    source.put(makeInstance('beta-1', { capabilities: ['plan'], port: 8002 }));
    let ports: number[] = [];
    while (ports.length === 0 && performance.now() - started < 3000) ports = await srvPorts(port, name);
    expect(ports).toEqual([8002]);
    source.remove('beta-1');
    const removed = performance.now();
    while (ports.length > 0 && performance.now() - removed < 3000) ports = await srvPorts(port, name);
    expect(ports).toEqual([]);
  });

  it('starts a new thread on the same port when the thread dies, with registrations made meanwhile', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('gamma-1', { capabilities: ['plan'], port: 8003 }));
    const zone = new Zone(source, options);
    const restarted: number[] = [];
    const thread = await startDnsResponderThread({
      zone,
      port: 0,
      onRestart: (_error, delayMs) => restarted.push(delayMs),
    });
    responder = thread;
    const name = '_plan._tcp.agents.internal';
    expect(await srvPorts(thread.port, name)).toEqual([8003]);
    const first = thread.worker;
    await first.terminate();
    source.put(makeInstance('gamma-2', { capabilities: ['plan'], port: 8004 }));
    let ports: number[] = [];
    const until = performance.now() + 10_000;
    while (ports.length < 2 && performance.now() < until) {
      ports = await srvPorts(thread.port, name).catch(() => []);
    }
    expect(ports.sort()).toEqual([8003, 8004]);
    expect(restarted).toEqual([100]);
    expect(thread.restarts).toBe(1);
    expect(thread.worker).not.toBe(first);
  });

  it.runIf(process.platform === 'linux')(
    'names its thread, so top -H and the churn bench can tell it apart',
    async () => {
      const names = () =>
        readdirSync('/proc/self/task').map((tid) =>
          readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(),
        );
      expect(names()).not.toContain(RESPONDER_THREAD_NAME);
      responder = await startDnsResponderThread({
        zone: new Zone(new FakeInstanceSource(), options),
        port: 0,
      });
      expect(names()).toContain(RESPONDER_THREAD_NAME);
    },
  );

  it('runs with a capped young generation and reports its heap used and committed after full GCs', async () => {
    const source = new FakeInstanceSource();
    for (let i = 0; i < 50; i++) source.put(makeInstance(`alpha-${i}`, { capabilities: ['summarize'] }));
    const thread = await startDnsResponderThread({ zone: new Zone(source, options), port: 0 });
    responder = thread;
    // V8's default would let the semi-spaces grow to 16 MB each, both kept committed (docs/registry.md, Memory).
    expect(thread.worker.resourceLimits?.maxYoungGenerationSizeMb).toBe(6);
    const memory = await thread.memory({ answerEveryName: true });
    expect(memory.heapUsed).toBeGreaterThan(0);
    expect(memory.heapTotal).toBeGreaterThanOrEqual(memory.heapUsed);
    expect(memory.external).toBeGreaterThan(0);
  });

  it('fails to start when the port is taken, and stops cleanly', async () => {
    const zone = new Zone(new FakeInstanceSource(), options);
    responder = await startDnsResponderThread({ zone, port: 0 });
    await expect(startDnsResponderThread({ zone, port: responder.port })).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
    const port = responder.port;
    await responder.stop();
    responder = undefined;
    await expect(srvPorts(port, '_plan._tcp.agents.internal')).rejects.toThrow('no UDP answer');
  });
});
