import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerBody } from '../testing/fixtures.js';
import { bearer, call } from '../testing/http.js';
import { settle, startTestRegistry, type TestRegistry } from '../testing/test-registry.js';

let t: TestRegistry;
beforeEach(async () => {
  t = await startTestRegistry({ config: { control_plane: { keep_instance_id: '10m' } } });
});
afterEach(async () => {
  await t.cleanup();
});

async function register(previous?: { instance_id: string; lease_token: string }, port = 8001) {
  const body = {
    ...registerBody(port),
    ...(previous
      ? { previous: { instance_id: previous.instance_id, lease_token: previous.lease_token } }
      : {}),
  };
  const reply = await call(t.registry.app, 'POST', '/v1/agents', body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  await settle();
  return reply.body as { instance_id: string; lease_token: string };
}

describe('re-registering after the lease ran out', () => {
  it('gives the previous id back to the holder of its lease token, with its routing history', async () => {
    const first = await register();
    const outcomes = {
      outcomes: [
        { instance_id: first.instance_id, request_id: 'r1', ok: false, failure: 'connect', latency_ms: 3 },
      ],
    };
    expect((await call(t.registry.app, 'POST', '/v1/outcomes', outcomes)).status).toBe(202);
    await t.advance(16_000, 1_000);
    expect(t.registry.instances.get(first.instance_id)).toBeUndefined();

    const again = await register(first);
    expect(again.instance_id).toBe(first.instance_id);
    expect(again.lease_token).not.toBe(first.lease_token);
    expect(t.registry.routing.router.book.window(first.instance_id)?.failures).toBe(1);
    // The new lease token is the one that counts now.
    const beat = await call(
      t.registry.app,
      'POST',
      `/v1/agents/${again.instance_id}/heartbeat`,
      { seq: 1 },
      bearer(again.lease_token),
    );
    expect(beat.status).toBe(200);
  });

  it('hands out a new id for a wrong lease token, an id still in use, or one deregistered', async () => {
    const first = await register();
    await t.advance(16_000, 1_000);
    const wrong = await register({ instance_id: first.instance_id, lease_token: 'not-the-token' });
    expect(wrong.instance_id).not.toBe(first.instance_id);

    const live = await register(undefined, 8002);
    const stolen = await register(live, 8003);
    expect(stolen.instance_id).not.toBe(live.instance_id);

    const gone = await call(
      t.registry.app,
      'DELETE',
      `/v1/agents/${live.instance_id}`,
      undefined,
      bearer(live.lease_token),
    );
    expect(gone.status).toBe(200);
    await settle();
    const afterDeregister = await register(live, 8004);
    expect(afterDeregister.instance_id).not.toBe(live.instance_id);
    expect(await t.store.get(`/reach/identities/${live.instance_id}`)).toBeNull();
  });

  it('lets the leader forget ids whose instance stayed gone past the retention', async () => {
    const first = await register();
    await t.advance(16_000, 1_000);
    expect(await t.store.get(`/reach/identities/${first.instance_id}`)).not.toBeNull();
    await t.advance(11 * 60_000, 30_000);
    expect(await t.store.get(`/reach/identities/${first.instance_id}`)).toBeNull();
    const later = await register(first);
    expect(later.instance_id).not.toBe(first.instance_id);
  });
});
