import { execFile, spawnSync } from 'node:child_process';
import cluster from 'node:cluster';
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { udpAsk } from '../testing/udp-ask.js';
import { type DnsResponder, startDnsResponder } from './responder.js';
import { type DnsResponderProcesses, startDnsResponderProcesses } from './responder-processes.js';
import { Zone } from './zone.js';
import { queryBytes } from './zone-queries.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };
const DIG = '/usr/bin/dig';
/** Questions over every kind of answer: positive, NODATA, NXDOMAIN, SOA, the index, SVCB. */
const QUESTIONS = [
  '_summarize._tcp.agents.internal SRV',
  '_agent._tcp.agents.internal SRV',
  '_summarize._a2a._agents.agents.internal SVCB',
  '_summarize._a2a._agents.agents.internal A',
  '_index._agents.agents.internal TXT',
  'alpha-1.agents.internal A',
  'alpha-1.agents.internal SVCB',
  'nobody.agents.internal A',
  'agents.internal SOA',
  'agents.internal NS',
];

// One try: a lost query shows as `timed out`. 5 s, not 2: on a busy CI machine (test files in parallel,
// each with its processes, and a benchmark beside them) one reply was seen to take longer than 2 s.
const digArgs = (port: number, flags: string[]) => [
  '@127.0.0.1',
  '-p',
  String(port),
  '+tries=1',
  '+timeout=5',
  '+nocookie',
  ...flags,
];
/** Whole replies without the message ids and timings, which differ between any two asks. */
const comparable = (out: string) =>
  out.replace(/id: \d+/g, 'id: ?').replace(/^;; (Query time|SERVER|WHEN|MSG SIZE).*$/gm, '');

/** dig asking `questions` while this thread answers nothing: only the responder processes can answer. */
function digBlocked(
  port: number,
  questions: string[],
  flags = ['+noall', '+comments', '+answer', '+authority'],
) {
  const args = digArgs(port, flags);
  for (const q of questions) args.push(...q.split(' '));
  const ran = spawnSync(DIG, args, { encoding: 'utf8', timeout: 20_000 });
  return ran.stdout;
}

function dig(port: number, args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(DIG, [...digArgs(port, []), ...args], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

/** The raw reply to `msg` over TCP (without its length prefix). */
function askTcp(port: number, msg: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(msg.length);
    socket.end(Buffer.concat([length, msg]));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).subarray(2)));
  });
}

/** Whether `port` can be bound over UDP and TCP by this process right now. */
async function bindable(port: number): Promise<boolean> {
  const udp = createSocket('udp4');
  const udpFree = await new Promise<boolean>((resolve) => {
    udp.once('error', () => resolve(false));
    udp.bind(port, '127.0.0.1', () => resolve(true));
  });
  udp.close();
  const tcp = createServer();
  const tcpFree = await new Promise<boolean>((resolve) => {
    tcp.once('error', () => resolve(false));
    tcp.listen(port, '127.0.0.1', () => resolve(true));
  });
  tcp.close();
  return udpFree && tcpFree;
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 150));

let processes: DnsResponderProcesses | undefined;
const others: DnsResponder[] = [];
afterEach(async () => {
  await processes?.stop();
  for (const other of others.splice(0)) await other.stop();
  processes = undefined;
});

async function start(zone: Zone, count: number, onRestart?: (index: number) => void) {
  processes = await startDnsResponderProcesses({ zone, port: 0, count, onRestart });
  return processes.port;
}

describe('startDnsResponderProcesses', () => {
  it('answers from child processes exactly as the in-process responder does, while this thread is blocked', async () => {
    const source = new FakeInstanceSource();
    source.put(
      makeInstance('alpha-1', { capabilities: ['summarize'], port: 8001 }),
      makeInstance('alpha-2', { capabilities: ['summarize', 'plan'], port: 8002 }),
    );
    const zone = new Zone(source, options);
    const port = await start(zone, 2);
    const inProcess = await startDnsResponder({ zone, port: 0 });
    others.push(inProcess);
    const flags = ['+noall', '+comments', '+answer', '+authority'];
    const args = QUESTIONS.flatMap((q) => [...flags, ...q.split(' ')]);
    const expected = comparable(await dig(inProcess.port, args));
    expect(expected).toContain('alpha-1.agents.internal');
    expect(expected).toContain('status: NXDOMAIN');
    expect(comparable(digBlocked(port, QUESTIONS, flags))).toBe(expected);
    expect(comparable(digBlocked(port, QUESTIONS, ['+tcp', ...flags]))).toBe(expected);
    // Byte for byte, over UDP and TCP (this thread never reads the processes' sockets).
    const types: Record<string, number> = { A: 1, NS: 2, SOA: 6, TXT: 16, SRV: 33, SVCB: 64 };
    for (const [i, question] of QUESTIONS.entries()) {
      const [name, type] = question.split(' ');
      const msg = queryBytes(name!, types[type!]!, i);
      expect(await udpAsk(port, msg)).toEqual(await udpAsk(inProcess.port, msg));
      expect(await askTcp(port, msg)).toEqual(await askTcp(inProcess.port, msg));
    }
  });

  it('follows registrations, deregistrations and weight changes', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('beta-1', { capabilities: ['plan'], port: 8001 }));
    const zone = new Zone(source, options);
    const port = await start(zone, 2);
    const srv = () =>
      digBlocked(port, ['_plan._tcp.agents.internal SRV'], ['+short']).trim().split('\n').sort();
    expect(srv()).toEqual(['10 50 8001 beta-1.agents.internal.']);

    source.put(makeInstance('beta-2', { capabilities: ['plan'], port: 8002 }));
    await settled();
    expect(srv()).toEqual(['10 50 8001 beta-1.agents.internal.', '10 50 8002 beta-2.agents.internal.']);

    zone.setWeightOf((_record, capability) => ({ priority: 20, weight: capability === undefined ? 1 : 9 }));
    await settled();
    expect(srv()).toEqual(['20 9 8001 beta-1.agents.internal.', '20 9 8002 beta-2.agents.internal.']);

    source.remove('beta-1');
    await settled();
    expect(srv()).toEqual(['20 9 8002 beta-2.agents.internal.']);
    expect(digBlocked(port, ['beta-1.agents.internal A'], ['+noall', '+comments'])).toContain(
      'status: NXDOMAIN',
    );
  });

  it('starts a new process when one dies, with registrations made meanwhile', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('gamma-1', { capabilities: ['plan'], port: 8003 }));
    const zone = new Zone(source, options);
    const restarted: number[] = [];
    const port = await start(zone, 1, (index) => restarted.push(index));
    const [first] = processes!.pids();
    process.kill(first!, 'SIGKILL');
    source.put(makeInstance('gamma-2', { capabilities: ['plan'], port: 8004 }));
    const until = performance.now() + 10_000;
    while (processes!.restarts === 0 && performance.now() < until) await settled();
    expect(restarted).toEqual([0]);
    expect(processes!.pids()).not.toEqual([first]);
    const ports = digBlocked(port, ['_plan._tcp.agents.internal SRV'], ['+short']).trim().split('\n');
    expect(ports.sort()).toEqual([
      '10 50 8003 gamma-1.agents.internal.',
      '10 50 8004 gamma-2.agents.internal.',
    ]);
  });

  it('loses no query with several processes reading one socket', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('delta-1', { capabilities: ['plan'], port: 8005 }));
    const port = await start(new Zone(source, options), 2);
    // Four dig batches at once, 250 questions each, each waited for (one try, 2 s) before the next.
    const batch = Array.from({ length: 250 }, (_, i) =>
      i % 2 === 0
        ? ['+noall', '+comments', '_plan._tcp.agents.internal', 'SRV']
        : ['+noall', '+comments', `n${i}.agents.internal`, 'A'],
    ).flat();
    const outputs = await Promise.all(Array.from({ length: 4 }, () => dig(port, batch)));
    const text = outputs.join('\n');
    expect(text).not.toContain('timed out');
    expect(text.match(/status: NOERROR/g)).toHaveLength(500);
    expect(text.match(/status: NXDOMAIN/g)).toHaveLength(500);
  });

  it('stops its processes and frees the address', async () => {
    const source = new FakeInstanceSource();
    source.put(makeInstance('eps-1', { capabilities: ['plan'], port: 8006 }));
    const port = await start(new Zone(source, options), 2);
    expect(await bindable(port)).toBe(false);
    const pids = processes!.pids();
    await processes!.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(await bindable(port)).toBe(true);
  });

  it('fails whole when the address is taken: no process left running, nothing bound', async () => {
    const taken = createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    const port = taken.address().port;
    const before = Object.keys(cluster.workers ?? {}).length;
    try {
      await expect(
        startDnsResponderProcesses({ zone: new Zone(new FakeInstanceSource(), options), port, count: 2 }),
      ).rejects.toThrow(/dns responder processes could not start: .*EADDRINUSE/);
      expect(Object.keys(cluster.workers ?? {}).length).toBe(before);
    } finally {
      taken.close();
    }
    // Nothing of ours holds the port over TCP either.
    expect(await bindable(port)).toBe(true);
  });
});
