import type { Clock } from '@agent-reach/sdk/clock';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import type { CardFetcher, FetchedCard } from './card-fetcher.js';
import type { DiscoveryStats } from './discovery-view.js';

/** The counters a lookup adds to (a discovery pass's tally). */
export type CardTally = Pick<
  DiscoveryStats,
  'card_fetches' | 'card_cache_hits' | 'card_failures' | 'card_negative_hits'
>;

/** Cache timing. */
export interface CardCacheOptions {
  /** How long a good card is reused. @default 60000 */
  ttlMs?: number;
  /** How long a failed endpoint is not asked again (seed 2.5). @default 8000 */
  negativeTtlMs?: number;
}

type Entry = { ok: true; card: FetchedCard; until: number } | { ok: false; error: ReachError; until: number };

/**
 * Agent cards by card URL: TTL cache, one fetch in flight per URL (single-flight), negative cache, and
 * the published digest check. Entries are keyed by what a registration controls (the card URL, and
 * the digest it published): a registration that points at another agent's host:port with a wrong
 * digest or path is refused alone, and the genuine agent's card stays cached (a bad registration may
 * only hurt itself).
 */
export class CardCache {
  private readonly entries = new Map<string, Entry>();
  /** Digest rejections by `url digest`: the card at `url` is fine, it just is not what was published. */
  private readonly rejected = new Map<string, { error: ReachError; until: number }>();
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly ttlMs: number;
  private readonly negativeTtlMs: number;

  constructor(
    private readonly fetcher: CardFetcher,
    private readonly clock: Pick<Clock, 'now'>,
    options: CardCacheOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.negativeTtlMs = options.negativeTtlMs ?? 8000;
  }

  /**
   * The card at `url` (on `endpoint`, the instance DNS gave); `expectedSha256` (from SVCB) must match
   * the bytes when given.
   */
  async get(
    _endpoint: string,
    url: string,
    expectedSha256: string | null,
    tally: CardTally,
  ): Promise<Result<FetchedCard>> {
    const refused = expectedSha256 === null ? undefined : this.rejected.get(`${url} ${expectedSha256}`);
    if (refused !== undefined && refused.until > this.clock.now()) {
      tally.card_negative_hits++;
      return err(refused.error);
    }
    const cached = this.fresh(url, expectedSha256, tally);
    if (cached !== undefined) return this.answer(cached, url, expectedSha256, tally);
    const running = this.inFlight.get(url);
    if (running !== undefined) {
      tally.card_cache_hits++;
      return this.answer(await running, url, expectedSha256, tally);
    }
    const fetching = this.fetch(url, tally);
    this.inFlight.set(url, fetching);
    try {
      return this.answer(await fetching, url, expectedSha256, tally);
    } finally {
      this.inFlight.delete(url);
    }
  }

  /** Forgets every entry (tests and config reloads). */
  clear(): void {
    this.entries.clear();
    this.rejected.clear();
  }

  private fresh(url: string, expectedSha256: string | null, tally: CardTally): Entry | undefined {
    const entry = this.entries.get(url);
    if (entry === undefined || entry.until <= this.clock.now()) return undefined;
    if (!entry.ok) {
      tally.card_negative_hits++;
      return entry;
    }
    // A new digest in DNS means the card may have changed: fetch it again instead of serving the old one.
    if (expectedSha256 !== null && entry.card.sha256 !== expectedSha256) return undefined;
    tally.card_cache_hits++;
    return entry;
  }

  private async fetch(url: string, tally: CardTally): Promise<Entry> {
    tally.card_fetches++;
    const result = await this.fetcher(url);
    const now = this.clock.now();
    const entry: Entry = result.ok
      ? { ok: true, card: result.value, until: now + this.ttlMs }
      : { ok: false, error: result.error, until: now + this.negativeTtlMs };
    if (!entry.ok) tally.card_failures++;
    // Only the fetch itself is cached under the URL; whether it matches a digest is each caller's.
    this.entries.set(url, entry);
    return entry;
  }

  private answer(
    entry: Entry,
    url: string,
    expectedSha256: string | null,
    tally: CardTally,
  ): Result<FetchedCard> {
    if (!entry.ok) return err(entry.error);
    if (expectedSha256 !== null && entry.card.sha256 !== expectedSha256) {
      const error = mismatch(entry.card.sha256, expectedSha256);
      // Bounded: a flood of bogus digests cannot grow it without end.
      if (this.rejected.size >= 4096) this.rejected.clear();
      this.rejected.set(`${url} ${expectedSha256}`, { error, until: this.clock.now() + this.negativeTtlMs });
      tally.card_failures++;
      return err(error);
    }
    return ok(entry.card);
  }
}

function mismatch(actual: string, expected: string): ReachError {
  return new ReachError(
    'VALIDATION_FAILED',
    `card digest ${actual} does not match the published ${expected}`,
    {
      data: { reason: 'card_sha_mismatch' },
    },
  );
}
