import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';
import { startRegistryDns } from './registry-dns.js';
import type { DnsResponder } from './responder.js';
import type { DnsResponderThread } from './responder-thread.js';

const run = promisify(execFile);

/** `dig +short` (or kdig) at the responder, over UDP or TCP. */
async function ask(
  tool: 'dig' | 'kdig',
  port: number,
  name: string,
  type: string,
  tcp = false,
): Promise<string> {
  const tries = tool === 'dig' ? '+tries=1' : '+retry=0';
  const args = ['@127.0.0.1', '-p', String(port), '+short', tries, '+timeout=1', name, type];
  if (tcp) args.unshift('+tcp');
  const { stdout } = await run(`/usr/bin/${tool}`, args);
  return stdout.trim();
}

/**
 * Asks until `check` holds (a change reaches the thread within one message hop; a restarted thread
 * answers after its start), for at most 15 s (a new thread loads its modules first); a question that gets no answer counts as ''.
 */
async function eventually(
  question: () => Promise<string>,
  check: (answer: string) => boolean,
): Promise<string> {
  const until = Date.now() + 15_000;
  for (;;) {
    const answer = await question().catch(() => '');
    if (check(answer) || Date.now() > until) return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let t: TestRegistry | undefined;
let responder: DnsResponder | undefined;
afterEach(async () => {
  await responder?.stop();
  await t?.cleanup();
  responder = undefined;
  t = undefined;
});

describe('the registry DNS with the default config (responder thread)', () => {
  it('answers dig and kdig over UDP and TCP from the thread, which holds the only encoded zone', async () => {
    t = await startTestRegistry({ config: { dns: { listen: '127.0.0.1:0' } } });
    const { zone } = t.registry;
    expect(t.registry.config.reach.dns.responder_thread).toBe(true);
    expect(zone.laidOut).toBe(false);
    responder = await startRegistryDns(t.registry);
    expect('worker' in responder).toBe(true);
    const { port } = responder;

    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const { instance_id, lease_token } = reply.body as { instance_id: string; lease_token: string };
    const srv = `10 80 8001 ${instance_id}.agents.internal.`;
    expect(
      await eventually(
        () => ask('dig', port, '_writing._tcp.agents.internal', 'SRV'),
        (a) => a === srv,
      ),
    ).toBe(srv);
    expect(await ask('kdig', port, '_writing._tcp.agents.internal', 'SRV', true)).toBe(srv);
    expect(await ask('dig', port, `${instance_id}.agents.internal`, 'A', true)).toBe('127.0.0.1');
    expect(await ask('kdig', port, `${instance_id}.agents.internal`, 'A')).toBe('127.0.0.1');
    // The SOA serial the thread answers is the main thread's.
    await settle();
    const soa = await ask('dig', port, 'agents.internal', 'SOA');
    expect(soa.split(' ')[2]).toBe(String(zone.serial));

    // The export comes from the thread, at the serial it names.
    const exported = await t.registry.app.request('/v1/zone');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('x-zone-serial')).toBe(String(zone.serial));
    expect(await exported.text()).toContain(`${instance_id}.agents.internal.\t15\tIN\tA\t127.0.0.1\n`);

    const gone = await call(
      t.registry.app,
      'DELETE',
      `/v1/agents/${instance_id}`,
      undefined,
      bearer(lease_token),
    );
    expect(gone.status).toBeLessThan(300);
    expect(
      await eventually(
        () => ask('dig', port, '_writing._tcp.agents.internal', 'SRV'),
        (a) => a === '',
      ),
    ).toBe('');
    // Nothing above made the main thread lay out a zone of its own.
    expect(zone.laidOut).toBe(false);
  });

  it('starts a new thread with a fresh copy when the thread dies, and exports from it', async () => {
    t = await startTestRegistry({ config: { dns: { listen: '127.0.0.1:0' } } });
    responder = await startRegistryDns(t.registry);
    const thread = responder as DnsResponderThread;
    const { port } = responder;
    const first = (await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001))).body as {
      instance_id: string;
    };
    const dead = thread.worker;
    await dead.terminate();
    // Registered while no thread runs: the new thread's full copy has it.
    const second = (await call(t.registry.app, 'POST', '/v1/agents', registerBody(8002))).body as {
      instance_id: string;
    };
    const both = (answer: string) => answer.includes(' 8001 ') && answer.includes(' 8002 ');
    const answer = await eventually(() => ask('dig', port, '_writing._tcp.agents.internal', 'SRV'), both);
    expect(answer).toContain(` 8001 ${first.instance_id}.agents.internal.`);
    expect(answer).toContain(` 8002 ${second.instance_id}.agents.internal.`);
    expect(thread.worker).not.toBe(dead);
    expect(thread.restarts).toBe(1);
    const text = await (await t.registry.app.request('/v1/zone')).text();
    expect(text).toContain(`${second.instance_id}.agents.internal.\t15\tIN\tA\t127.0.0.1\n`);
    expect(t.registry.zone.laidOut).toBe(false);
  });
});
