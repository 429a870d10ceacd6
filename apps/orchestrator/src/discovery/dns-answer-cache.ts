import type { Clock } from '@agent-reach/sdk/clock';
import type { DnsResponse } from '@agent-reach/sdk/dns';
import type { Result } from '@agent-reach/sdk/protocol';

/**
 * DNS answers by question, kept for the smallest record TTL (capped): back-to-back runs reuse the
 * last answers instead of asking again. Failures and empty answers are never kept.
 */
export class DnsAnswerCache {
  private readonly entries = new Map<string, { value: DnsResponse; until: number }>();

  /** @param maxMs the longest an answer is kept, whatever its TTL. @default 5000 */
  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    private readonly maxMs = 5000,
  ) {}

  /** A fresh answer for `key`, or undefined. */
  get(key: string): DnsResponse | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.until > this.clock.now()) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps a successful, non-empty answer for min(TTL, maxMs). */
  put(key: string, res: Result<DnsResponse>): void {
    if (!res.ok || res.value.rcode !== 'NOERROR' || res.value.answers.length === 0) return;
    const ttlS = Math.min(...[...res.value.answers, ...res.value.additionals].map((r) => r.ttl));
    const keepMs = Math.min(ttlS * 1000, this.maxMs);
    if (keepMs > 0) this.entries.set(key, { value: res.value, until: this.clock.now() + keepMs });
  }

  /** Forgets every answer. */
  clear(): void {
    this.entries.clear();
  }
}
