import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
let id: string;
let token: string;

beforeEach(async () => {
  t = await startTestRegistry();
  const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
  id = reply.body.instance_id as string;
  token = reply.body.lease_token as string;
});
afterEach(async () => {
  vi.useRealTimers();
  await t.cleanup();
});

const beat = (seq: number, load?: object, auth = token, instance = id) =>
  call(
    t.registry.app,
    'POST',
    `/v1/agents/${instance}/heartbeat`,
    load ? { seq, load } : { seq },
    bearer(auth),
  );
const alive = async () => (await t.store.get(`/reach/instances/${id}`)) !== null;

describe('POST /v1/agents/:id/heartbeat', () => {
  it('accepts increasing seqs and records load and the last heartbeat', async () => {
    expect(await beat(1)).toEqual({
      status: 200,
      body: { status: 'ok', state: 'healthy', heartbeat_interval_ms: 5000 },
    });
    expect((await beat(2, { in_flight: 3, capacity: 8, queue: 1 })).status).toBe(200);
    const view = await call(t.registry.app, 'GET', `/v1/agents/${id}`);
    expect(view.body).toMatchObject({
      last_seq: 2,
      load: { in_flight: 3, capacity: 8, queue: 1 },
      state: 'healthy',
    });
    expect(Date.parse(view.body.last_heartbeat_at as string)).toBeGreaterThan(0);
  });

  it('keeps the registration alive past the lease TTL while heartbeats come', async () => {
    for (let seq = 1; seq <= 8; seq++) {
      await t.advance(5000);
      expect((await beat(seq)).status).toBe(200);
    }
    expect(await alive()).toBe(true);
  });

  it('refuses a replayed or older seq with STALE_HEARTBEAT and does not extend the lease', async () => {
    expect((await beat(5)).status).toBe(200);
    await t.advance(10_000);
    const replay = await beat(5);
    expect(replay).toMatchObject({ status: 409, body: { code: 'STALE_HEARTBEAT', data: { last_seq: 5 } } });
    expect((await beat(3)).body.code).toBe('STALE_HEARTBEAT');
    // Had the replay at 10 s extended the lease, the record would live until 25 s.
    await t.advance(5_000);
    expect(await alive()).toBe(false);
    const late = await beat(6);
    expect(late.status).toBe(410);
    expect(late.body.code).toBe('UNKNOWN_INSTANCE');
    expect(late.body.message).toContain('register again');
  });

  it('refuses a stale heartbeat sent concurrently with the one it replays', async () => {
    const [a, b] = await Promise.all([beat(1), beat(1)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
  });

  it('answers UNKNOWN_INSTANCE (410) for an instance it does not know', async () => {
    const reply = await beat(1, undefined, token, 'nobody-0000');
    expect(reply).toMatchObject({ status: 410, body: { code: 'UNKNOWN_INSTANCE' } });
    expect(reply.body.message).toContain('register again');
  });

  it('needs the lease token of that registration', async () => {
    const other = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8002));
    const wrong = await beat(1, undefined, other.body.lease_token as string);
    expect(wrong).toMatchObject({ status: 401, body: { code: 'LEASE_TOKEN_INVALID' } });
    const missing = await call(t.registry.app, 'POST', `/v1/agents/${id}/heartbeat`, { seq: 1 });
    expect(missing).toMatchObject({ status: 401, body: { code: 'LEASE_TOKEN_INVALID' } });
    // A refused token does not consume the seq.
    expect((await beat(1)).status).toBe(200);
  });

  it('refuses bad heartbeat bodies with 400 and a code', async () => {
    const path = `/v1/agents/${id}/heartbeat`;
    const headers = bearer(token);
    expect((await call(t.registry.app, 'POST', path, '{nope', headers)).body.code).toBe('INVALID_JSON');
    expect((await call(t.registry.app, 'POST', path, { seq: 'one' }, headers)).body.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await call(t.registry.app, 'POST', path, { seq: 0 }, headers)).body.code).toBe(
      'VALIDATION_FAILED',
    );
    const badLoad = await call(t.registry.app, 'POST', path, { seq: 1, load: { in_flight: -1 } }, headers);
    expect(badLoad).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(badLoad.body.message).toContain('load.in_flight');
    const badId = await call(t.registry.app, 'POST', '/v1/agents/Not_An_Id/heartbeat', { seq: 1 }, headers);
    expect(badId).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('marks an instance suspect after a missed heartbeat, healthy again on the next', async () => {
    expect((await beat(1)).status).toBe(200);
    await t.advance(5_500);
    expect((await call(t.registry.app, 'GET', `/v1/agents/${id}`)).body.state).toBe('healthy');
    await t.advance(2_500);
    expect((await call(t.registry.app, 'GET', `/v1/agents/${id}`)).body.state).toBe('suspect');
    const suspects = await call(t.registry.app, 'GET', '/v1/agents?state=suspect');
    expect((suspects.body.instances as unknown[]).length).toBe(1);
    expect((await beat(2)).status).toBe(200);
    expect((await call(t.registry.app, 'GET', `/v1/agents/${id}`)).body.state).toBe('healthy');
  });

  it('is not moved by a wall-clock jump of an hour either way', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-05-01T12:00:00Z'));
    expect((await beat(1)).status).toBe(200);
    // NTP steps the clock an hour forward: nothing may expire or turn suspect.
    vi.setSystemTime(new Date('2031-05-01T13:00:00Z'));
    await t.advance(1_000);
    expect((await call(t.registry.app, 'GET', `/v1/agents/${id}`)).body.state).toBe('healthy');
    expect(await alive()).toBe(true);
    expect((await beat(2)).status).toBe(200);
    // ...and two hours back: heartbeats are still judged by seq, not by time.
    vi.setSystemTime(new Date('2031-05-01T11:00:00Z'));
    await t.advance(1_000);
    const third = await beat(3);
    expect(third.status).toBe(200);
    const view = await call(t.registry.app, 'GET', `/v1/agents/${id}`);
    expect(view.body).toMatchObject({ state: 'healthy', last_seq: 3 });
    expect(view.body.last_heartbeat_at).toBe('2031-05-01T11:00:00.000Z');
    // Deadlines still follow the monotonic clock: 15 s without heartbeats ends the lease.
    await t.advance(15_000);
    expect(await alive()).toBe(false);
  });
});

describe('the lease is a dead-man switch, refreshed now and then', () => {
  const keepAlivesSent = async () => {
    const text = (await t.registry.metrics.render()).body;
    return Number(/reach_registry_lease_keepalives_total\{by="heartbeat"\} (\d+)/.exec(text)?.[1] ?? 0);
  };

  it('sends a keep-alive only when the last one is older than the refresh window (52.5 s)', async () => {
    const keepAlive = vi.spyOn(t.store, 'keepAlive');
    // Registered at 0 (the grant counts as a refresh); heartbeats every 5 s for two minutes.
    for (let seq = 1; seq <= 24; seq++) {
      await t.advance(5000);
      expect((await beat(seq)).status).toBe(200);
    }
    // Due at 55 s (52.5 s after the grant) and at 110 s: two keep-alives for 24 heartbeats.
    expect(keepAlive).toHaveBeenCalledTimes(2);
    expect(await keepAlivesSent()).toBe(2);
    expect(await alive()).toBe(true);
  });

  it('lets the leader evict a silent instance at heartbeat_timeout, long before its 120 s lease', async () => {
    expect((await beat(1)).status).toBe(200);
    await t.advance(14_000);
    expect(await alive()).toBe(true);
    await t.advance(2_000);
    expect(await alive()).toBe(false);
    expect((await beat(2)).body.code).toBe('UNKNOWN_INSTANCE');
  });

  it('lets records go at the lease TTL when no registry refreshes it or sweeps', async () => {
    // No sweeper (as when every replica is gone): only the lease's own TTL removes the records.
    await t.cleanup();
    t = await startTestRegistry({ sweep: false });
    const reply = await call(t.registry.app, 'POST', '/v1/agents', registerBody(8001));
    id = reply.body.instance_id as string;
    await t.advance(119_000, 1000);
    expect(await alive()).toBe(true);
    await t.advance(2_000);
    expect(await alive()).toBe(false);
  });
});

describe('a heartbeat while the store is unavailable', () => {
  it('answers ok while no keep-alive is due (the store is not asked), 503 STORE_UNAVAILABLE once one is', async () => {
    expect((await beat(1)).status).toBe(200);
    const keepAlive = vi.spyOn(t.store, 'keepAlive').mockRejectedValue(new Error('no quorum'));
    // Within 52.5 s of the grant the heartbeats need no keep-alive.
    for (let seq = 2; seq <= 11; seq++) {
      await t.advance(5000);
      expect((await beat(seq)).status).toBe(200);
    }
    expect(keepAlive).not.toHaveBeenCalled();
    // From 55 s one is due and the store does not take it; the agent stays healthy (it was heard).
    for (let i = 0; i < 2; i++) {
      await t.advance(5000);
      const reply = await beat(12);
      expect(reply.status, `${i}: ${JSON.stringify(reply.body)}`).toBe(503);
      expect(reply.body.code).toBe('STORE_UNAVAILABLE');
    }
    expect(t.registry.liveness.snapshot(id)?.state).toBe('healthy');
    expect(await alive()).toBe(true);
    keepAlive.mockRestore();
    // The seq the store never took is accepted once it is back.
    expect((await beat(12)).status).toBe(200);
  });
});
