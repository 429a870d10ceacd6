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
 * Agent cards by endpoint: TTL cache, one fetch in flight per endpoint (single-flight), negative cache,
 * and the published digest check (a card whose sha256 differs from key65401 is rejected).
 */
export class CardCache {
  private readonly entries = new Map<string, Entry>();
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

  /** The card at `url` for `endpoint`; `expectedSha256` (from SVCB) must match the bytes when given. */
  async get(
    endpoint: string,
    url: string,
    expectedSha256: string | null,
    tally: CardTally,
  ): Promise<Result<FetchedCard>> {
    const cached = this.fresh(endpoint, expectedSha256, tally);
    if (cached !== undefined) return this.answer(cached, expectedSha256);
    const running = this.inFlight.get(endpoint);
    if (running !== undefined) {
      tally.card_cache_hits++;
      return this.answer(await running, expectedSha256);
    }
    const fetching = this.fetch(endpoint, url, expectedSha256, tally);
    this.inFlight.set(endpoint, fetching);
    try {
      return this.answer(await fetching, expectedSha256);
    } finally {
      this.inFlight.delete(endpoint);
    }
  }

  /** Forgets every entry (tests and config reloads). */
  clear(): void {
    this.entries.clear();
  }

  private fresh(endpoint: string, expectedSha256: string | null, tally: CardTally): Entry | undefined {
    const entry = this.entries.get(endpoint);
    if (entry === undefined || entry.until <= this.clock.now()) return undefined;
    if (!entry.ok) {
      tally.card_negative_hits++;
      return entry;
    }
    // A new digest in DNS means the card changed: fetch it again instead of serving the old one.
    if (expectedSha256 !== null && entry.card.sha256 !== expectedSha256) return undefined;
    tally.card_cache_hits++;
    return entry;
  }

  private async fetch(
    endpoint: string,
    url: string,
    expectedSha256: string | null,
    tally: CardTally,
  ): Promise<Entry> {
    tally.card_fetches++;
    const result = await this.fetcher(url);
    const until = this.clock.now();
    let entry: Entry;
    if (!result.ok) entry = { ok: false, error: result.error, until: until + this.negativeTtlMs };
    else if (expectedSha256 !== null && result.value.sha256 !== expectedSha256) {
      entry = {
        ok: false,
        error: mismatch(result.value.sha256, expectedSha256),
        until: until + this.negativeTtlMs,
      };
    } else entry = { ok: true, card: result.value, until: until + this.ttlMs };
    if (!entry.ok) tally.card_failures++;
    this.entries.set(endpoint, entry);
    return entry;
  }

  private answer(entry: Entry, expectedSha256: string | null): Result<FetchedCard> {
    if (!entry.ok) return err(entry.error);
    // A caller that joined someone else's fetch may expect another digest.
    if (expectedSha256 !== null && entry.card.sha256 !== expectedSha256) {
      return err(mismatch(entry.card.sha256, expectedSha256));
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
