import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningKnot, startKnot } from '../harness/knot.js';
import { type Reply, tcpQuery } from './dns-client.js';
import { kdig, section } from './dns-tools.js';
import { agentBody, type RegistryWithDns, startRegistryWithDns } from './registry-harness.js';
import { untilStable } from './stable.js';

let env: RegistryWithDns;
let knot: RunningKnot | undefined;
let zoneText: string;

/** Exports the live zone over HTTP and (re)starts knot on it. */
async function loadKnot(): Promise<RunningKnot> {
  await knot?.stop();
  const res = await fetch(`${env.registry.url}/v1/zone`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  zoneText = await res.text();
  knot = await startKnot('agents.internal', zoneText);
  return knot;
}

beforeAll(async () => {
  env = await startRegistryWithDns();
  await env.register(
    agentBody({
      name: 'summarizer-v2',
      port: 8001,
      capabilities: ['summarize'],
      serves: ['writing'],
      priority: 80,
    }),
  );
  await env.register(
    agentBody({ name: 'planner', host: 'fd00::7', port: 8002, capabilities: ['plan'], serves: ['planning'] }),
  );
  for (let i = 0; i < 40; i++) {
    await env.register(
      agentBody({
        name: 'cruncher',
        host: `10.9.0.${i + 1}`,
        port: 9000 + i,
        capabilities: ['crunch', 'summarize'],
      }),
    );
  }
});

afterAll(async () => {
  await knot?.stop();
  await env?.stop();
});

/**
 * A reply reduced to what both servers must agree on: rcode, AA, answer RRs, and the authority of
 * negative answers. Names compare case-insensitively (knot compresses SOA names against the question);
 * RDATA octets are hex, so lower-casing them changes nothing.
 */
function comparable(reply: Reply): unknown {
  const rr = (r: { name: string; type: string; ttl?: number; data?: unknown }) =>
    `${r.name} ${r.type} ${r.ttl} ${JSON.stringify(r.data, (_k, v) =>
      v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('hex') : v,
    )}`.toLowerCase();
  return {
    rcode: reply.rcode,
    aa: reply.flag_aa,
    answers: reply.answers.map(rr).sort(),
    authority: reply.answers.length === 0 ? reply.authorities.map(rr).sort() : [],
  };
}

describe('the exported zone file', () => {
  it('loads into knot with the same serial', async () => {
    const knot = await loadKnot();
    const status = await knot.knotc('zone-status', 'agents.internal');
    expect(status).toContain(`serial: ${/serial (\d+)/.exec(zoneText)![1]}`);
    expect(zoneText.split('\n').find((line) => !line.startsWith(';') && !line.startsWith('$'))).toMatch(
      /\tSOA\t/,
    );
  });

  it('makes knot give the same answers as the responder', async () => {
    // A weight publication between export and comparison moves the serial: export again then.
    await untilStable(compareAll);
  });

  it('knot prints the SVCB records it loaded just as the responder serves them', async () => {
    await untilStable(async () => {
      const knot = await loadKnot();
      const ours = section(
        await kdig(env.dns.port, '+tcp', '_summarize._a2a._agents.agents.internal', 'SVCB'),
        'ANSWER',
      );
      const theirs = section(
        await kdig(knot.port, '+tcp', '_summarize._a2a._agents.agents.internal', 'SVCB'),
        'ANSWER',
      );
      expect(ours).toHaveLength(41);
      expect(theirs.map((f) => f.join(' ')).sort()).toEqual(ours.map((f) => f.join(' ')).sort());
    });
  });
});

/** Loads a fresh export into knot and compares a grid of questions on both servers. */
async function compareAll(): Promise<void> {
  const knot = await loadKnot();
  const names = [...env.registry.zone.snapshot().nodes.keys()].map((n) =>
    n === '' ? 'agents.internal' : `${n}.agents.internal`,
  );
  const probes = [
    ...names,
    '_tcp.agents.internal',
    '_agents.agents.internal',
    '_a2a._agents.agents.internal',
    'nobody.agents.internal',
    'deeper.cruncher-x.agents.internal',
    '_SUMMARIZE._TCP.Agents.Internal',
  ];
  const types = ['A', 'AAAA', 'SRV', 'TXT', 'SOA', 'NS', 'UNKNOWN_64'];
  let compared = 0;
  let withData = 0;
  for (const name of probes) {
    for (const type of types) {
      const ours = await tcpQuery(env.dns.port, name, type);
      const theirs = await tcpQuery(knot.port, name, type);
      expect(comparable(ours), `${name} ${type}`).toEqual(comparable(theirs));
      compared++;
      if (ours.answers.length > 0) withData++;
    }
  }
  expect(compared).toBeGreaterThan(100);
  expect(withData).toBeGreaterThan(names.length);
}
