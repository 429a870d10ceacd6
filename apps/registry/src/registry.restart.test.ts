import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedStore } from './store/embedded/embedded-store.js';
import { registerBody } from './testing/fixtures.js';
import { bearer, call } from './testing/http.js';
import { startTestRegistry, type TestRegistry } from './testing/test-registry.js';

let t: TestRegistry;
afterEach(async () => {
  await t.cleanup();
});

describe('a registry restart on the embedded store', () => {
  it('keeps live registrations, their lease tokens and the declaration history', async () => {
    // With the SkyDNS projection on, so lease-bound keys beside the record are seen to survive too.
    t = await startTestRegistry({ config: { dns: { skydns_projection: 'on' } } });
    const first = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const id = first.body.instance_id as string;
    const token = first.body.lease_token as string;
    await call(
      t.registry.app,
      'POST',
      '/v1/agents',
      registerBody(8002, { version: '2', change_reason: 'faster' }),
    );
    expect(
      (await call(t.registry.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq: 41 }, bearer(token))).status,
    ).toBe(200);
    await t.advance(3_000);
    const records = await t.store.list('/reach/instances/');
    const identities = await t.store.list('/reach/identities/');
    expect(identities).toHaveLength(2);

    // Each record loaded from the journal is the same JSON as the cache's parse of it, so the store keeps
    // that object, not the text, as it does for a registration made in this process; so is each live
    // instance's identity record, made from the record's own strings.
    const kept = vi.spyOn(EmbeddedStore.prototype, 'keepAsSource');
    t = await t.restart();
    expect(kept.mock.calls.map(([key, value]) => ({ key, value }))).toEqual(
      [...records, ...identities].map(({ key, value }) => ({ key, value })),
    );
    expect(await t.store.list('/reach/identities/')).toEqual(identities);
    kept.mockRestore();
    expect(await t.store.list('/reach/instances/')).toEqual(records);
    const listed = await call(t.registry.app, 'GET', '/v1/agents');
    expect((listed.body.instances as Array<{ instance_id: string }>).map((v) => v.instance_id)).toContain(id);
    expect(listed.body.instances).toHaveLength(2);
    expect(await t.store.get(`/skydns/internal/agents/_tcp/_summarize/${id}`)).not.toBeNull();
    // The cache starts empty: the first heartbeat's seq is the new baseline, then seqs must grow again.
    const beat = (seq: number) =>
      call(t.registry.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq }, bearer(token));
    expect((await beat(42)).status).toBe(200);
    expect((await beat(42)).body.code).toBe('STALE_HEARTBEAT');
    const history = await call(t.registry.app, 'GET', '/v1/declarations/summarizer-v2');
    expect((history.body.history as Array<{ version: string }>).map((entry) => entry.version)).toEqual([
      '1',
      '2',
    ]);
    // Restored leases got a fresh TTL and keep working: the heartbeating one lives on, the other expires.
    for (let seq = 43; seq < 47; seq++) {
      await t.advance(5_000);
      expect((await beat(seq)).status).toBe(200);
    }
    expect((await call(t.registry.app, 'GET', '/v1/agents')).body.instances).toHaveLength(1);
    // The new version is still known: registering it again adds no history entry.
    await call(t.registry.app, 'POST', '/v1/agents', registerBody(8003, { version: '2' }));
    expect(await t.store.list('/reach/declarations/summarizer-v2/')).toHaveLength(2);
  });

  it('drops the SkyDNS keys of a journal written with the projection (older versions) and keeps the instances', async () => {
    t = await startTestRegistry({ config: { dns: { skydns_projection: 'on' } } });
    const first = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    const id = first.body.instance_id as string;
    const token = first.body.lease_token as string;
    const written = (await t.store.list('/skydns/')).map((kv) => kv.key);
    expect(written).toContain('/skydns/internal/agents/dns/ns/ns');
    expect(written).toContain(`/skydns/internal/agents/_tcp/_summarize/${id}`);
    await t.stop();

    // Today's default on the embedded store: no projection, and none carried over.
    t = await startTestRegistry({ dir: t.dir, clock: t.clock });
    expect(await t.store.list('/skydns/')).toEqual([]);
    expect(t.logs).toContainEqual(expect.objectContaining({ removed: written.length }));
    expect(await t.store.get(`/reach/instances/${id}`)).not.toBeNull();
    const beat = await call(t.registry.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq: 1 }, bearer(token));
    expect(beat.status).toBe(200);
    const zone = await (await t.registry.app.request('/v1/zone')).text();
    expect(zone).toContain(`${id}.agents.internal.`);
    // The removal was journaled: the next start finds nothing to remove.
    t = await t.restart();
    expect(await t.store.list('/skydns/')).toEqual([]);
    expect(t.logs.some((line) => 'removed' in line)).toBe(false);
  });
});
