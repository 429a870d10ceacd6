import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../store/store.js';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;

/** The SkyDNS keys of instances: all but the zone's own name-server key, written at start. */
async function instanceSkydnsKeys() {
  return (await t.store.list('/skydns/')).filter((kv) => kv.key !== '/skydns/internal/agents/dns/ns/ns');
}
beforeEach(async () => {
  // With the SkyDNS projection (off by default on the embedded store), so its keys are checked too.
  t = await startTestRegistry({ config: { dns: { skydns_projection: 'on' } } });
});
afterEach(async () => {
  await t.cleanup();
});

describe('DELETE /v1/agents/:id', () => {
  it('removes every key of the instance at once and keeps the history', async () => {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const id = reply.body.instance_id as string;
    const token = reply.body.lease_token as string;
    const keys = [...(await t.store.list('/reach/instances/')), ...(await instanceSkydnsKeys())].map(
      (kv) => kv.key,
    );
    expect(keys.length).toBeGreaterThanOrEqual(4);
    const batches: WatchEvent[][] = [];
    await t.store.watch('/', (events) => batches.push(events));

    const gone = await call(t.registry.app, 'DELETE', `/v1/agents/${id}`, undefined, bearer(token));
    expect(gone).toEqual({ status: 200, body: { instance_id: id, state: 'deregistered' } });
    expect(await t.store.list('/reach/instances/')).toEqual([]);
    expect(await instanceSkydnsKeys()).toEqual([]);
    await settle();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.every((event) => event.type === 'delete')).toBe(true);
    // The instance's keys and its identity (nothing will re-register under a deregistered id).
    expect(batches[0]!.map((event) => event.key).sort()).toEqual([...keys, `/reach/identities/${id}`].sort());
    expect(await t.store.list('/reach/declarations/')).toHaveLength(1);

    const view = await call(t.registry.app, 'GET', `/v1/agents/${id}`);
    expect(view.body.state).toBe('deregistered');
    expect((await call(t.registry.app, 'GET', '/v1/agents')).body.instances).toEqual([]);
    const listed = await call(t.registry.app, 'GET', '/v1/agents?state=deregistered');
    expect((listed.body.instances as Array<{ instance_id: string }>).map((v) => v.instance_id)).toEqual([id]);
    const beat = await call(t.registry.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq: 9 }, bearer(token));
    expect(beat.status).toBe(410);
    const again = await call(t.registry.app, 'DELETE', `/v1/agents/${id}`, undefined, bearer(token));
    expect(again).toMatchObject({ status: 410, body: { code: 'UNKNOWN_INSTANCE' } });
  });

  it('needs the lease token', async () => {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const id = reply.body.instance_id as string;
    const noToken = await call(t.registry.app, 'DELETE', `/v1/agents/${id}`);
    expect(noToken).toMatchObject({ status: 401, body: { code: 'LEASE_TOKEN_INVALID' } });
    const wrong = await call(t.registry.app, 'DELETE', `/v1/agents/${id}`, undefined, bearer('x'.repeat(43)));
    expect(wrong).toMatchObject({ status: 401, body: { code: 'LEASE_TOKEN_INVALID' } });
    expect(await t.store.get(`/reach/instances/${id}`)).not.toBeNull();
  });
});

describe('an expired lease', () => {
  it('removes every key and shows the instance as unavailable', async () => {
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const id = reply.body.instance_id as string;
    await t.advance(15_000);
    expect(await instanceSkydnsKeys()).toEqual([]);
    expect(await t.store.list('/reach/instances/')).toEqual([]);
    expect((await call(t.registry.app, 'GET', `/v1/agents/${id}`)).body.state).toBe('unavailable');
    const unavailable = await call(t.registry.app, 'GET', '/v1/agents?state=unavailable');
    expect(unavailable.body.instances).toHaveLength(1);
  });
});
