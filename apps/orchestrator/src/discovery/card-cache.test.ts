import { type AgentCard, buildAgentCard, Declaration, err, ok, ReachError } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { CardCache, type CardTally } from './card-cache.js';
import type { CardFetcher } from './card-fetcher.js';

const card: AgentCard = buildAgentCard(
  Declaration.parse({
    agent_name: 'writer',
    domain: 'text',
    capabilities: { write: { serves: ['writing'] } },
  }),
  { host: '127.0.0.1', port: 9000, scheme: 'http', alpn: ['http/1.1'] },
);

function tally(): CardTally {
  return { card_fetches: 0, card_cache_hits: 0, card_failures: 0, card_negative_hits: 0 };
}

function setup(result: () => ReturnType<CardFetcher>, delayMs = 0) {
  const clock = {
    t: 0,
    now() {
      return this.t;
    },
  };
  let calls = 0;
  const fetcher: CardFetcher = async () => {
    calls++;
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    return result();
  };
  return {
    clock,
    cache: new CardCache(fetcher, clock, { ttlMs: 60_000, negativeTtlMs: 8000 }),
    calls: () => calls,
  };
}

describe('CardCache', () => {
  it('reuses a good card until its TTL ends', async () => {
    const s = setup(async () => ok({ card, sha256: 'A'.repeat(43) }));
    const t = tally();
    expect((await s.cache.get('h:1', 'http://h:1/c', null, t)).ok).toBe(true);
    s.clock.t = 59_000;
    expect((await s.cache.get('h:1', 'http://h:1/c', null, t)).ok).toBe(true);
    expect(s.calls()).toBe(1);
    s.clock.t = 61_000;
    await s.cache.get('h:1', 'http://h:1/c', null, t);
    expect(s.calls()).toBe(2);
    expect(t).toEqual({ card_fetches: 2, card_cache_hits: 1, card_failures: 0, card_negative_hits: 0 });
  });

  it('sends one fetch for many concurrent lookups of one endpoint (single-flight)', async () => {
    const s = setup(async () => ok({ card, sha256: 'A'.repeat(43) }), 20);
    const t = tally();
    const all = await Promise.all(
      Array.from({ length: 10 }, () => s.cache.get('h:1', 'http://h:1/c', null, t)),
    );
    expect(all.every((r) => r.ok)).toBe(true);
    expect(s.calls()).toBe(1);
    expect(t.card_fetches).toBe(1);
    expect(t.card_cache_hits).toBe(9);
  });

  it('does not ask a failed endpoint again for 8 s', async () => {
    const s = setup(async () =>
      err(new ReachError('UNAVAILABLE', 'refused', { data: { reason: 'card_unreachable' } })),
    );
    const t = tally();
    expect((await s.cache.get('h:1', 'http://h:1/c', null, t)).ok).toBe(false);
    s.clock.t = 7999;
    const again = await s.cache.get('h:1', 'http://h:1/c', null, t);
    expect(again.ok).toBe(false);
    expect(s.calls()).toBe(1);
    s.clock.t = 8001;
    await s.cache.get('h:1', 'http://h:1/c', null, t);
    expect(s.calls()).toBe(2);
    expect(t).toEqual({ card_fetches: 2, card_cache_hits: 0, card_failures: 2, card_negative_hits: 1 });
  });

  it('rejects a card whose sha256 differs from the published digest, and caches the rejection', async () => {
    const s = setup(async () => ok({ card, sha256: 'B'.repeat(43) }));
    const t = tally();
    const res = await s.cache.get('h:1', 'http://h:1/c', 'A'.repeat(43), t);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.error.data?.reason).toBe('card_sha_mismatch');
    await s.cache.get('h:1', 'http://h:1/c', 'A'.repeat(43), t);
    expect(s.calls()).toBe(1);
    expect(t.card_failures).toBe(1);
  });

  it('fetches again when DNS publishes a new digest', async () => {
    let sha = 'A'.repeat(43);
    const s = setup(async () => ok({ card, sha256: sha }));
    const t = tally();
    expect((await s.cache.get('h:1', 'http://h:1/c', sha, t)).ok).toBe(true);
    sha = 'C'.repeat(43);
    expect((await s.cache.get('h:1', 'http://h:1/c', sha, t)).ok).toBe(true);
    expect(s.calls()).toBe(2);
  });
});

describe('CardCache: a bad registration only hurts itself', () => {
  const genuine = 'G'.repeat(43);

  it('a wrong digest for the genuine card URL does not make the genuine registration fail', async () => {
    const s = setup(async () => ok({ card, sha256: genuine }));
    const t = tally();
    expect((await s.cache.get('h:1', 'http://h:1/c', genuine, t)).ok).toBe(true);
    // The impostor's registration publishes the same host:port with another digest.
    const bad = await s.cache.get('h:1', 'http://h:1/c', 'X'.repeat(43), t);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.data?.reason).toBe('card_sha_mismatch');
    // The genuine one still gets its card, from the cache.
    const calls = s.calls();
    expect((await s.cache.get('h:1', 'http://h:1/c', genuine, t)).ok).toBe(true);
    expect(s.calls()).toBe(calls);
    // And the impostor's rejection is cached for itself: no fetch per lookup.
    expect((await s.cache.get('h:1', 'http://h:1/c', 'X'.repeat(43), t)).ok).toBe(false);
    expect(s.calls()).toBe(calls);
  });

  it('the impostor first: the genuine registration is not refused after it', async () => {
    const s = setup(async () => ok({ card, sha256: genuine }));
    const t = tally();
    expect((await s.cache.get('h:1', 'http://h:1/c', 'X'.repeat(43), t)).ok).toBe(false);
    expect((await s.cache.get('h:1', 'http://h:1/c', genuine, t)).ok).toBe(true);
  });

  it('a card URL that fails on the same host:port does not poison the genuine card URL', async () => {
    const clock = { now: () => 0 };
    const fetcher: CardFetcher = async (url) =>
      url.endsWith('/c')
        ? ok({ card, sha256: genuine })
        : err(new ReachError('UNAVAILABLE', 'not found', { data: { reason: 'card_http_404' } }));
    const cache = new CardCache(fetcher, clock);
    const t = tally();
    expect((await cache.get('h:1', 'http://h:1/missing', 'X'.repeat(43), t)).ok).toBe(false);
    expect((await cache.get('h:1', 'http://h:1/c', genuine, t)).ok).toBe(true);
  });

  it('concurrent lookups with different digests share one fetch and each gets its own answer', async () => {
    const s = setup(async () => ok({ card, sha256: genuine }), 20);
    const t = tally();
    const [a, b] = await Promise.all([
      s.cache.get('h:1', 'http://h:1/c', 'X'.repeat(43), t),
      s.cache.get('h:1', 'http://h:1/c', genuine, t),
    ]);
    expect([a.ok, b.ok]).toEqual([false, true]);
    expect(s.calls()).toBe(1);
  });
});
