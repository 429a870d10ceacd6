import { createHash } from 'node:crypto';
import { AgentCard, err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';
import { httpGet } from './http-get.js';

/** A card as fetched: the parsed card and the sha256 (base64url) of the exact bytes served. */
export interface FetchedCard {
  card: AgentCard;
  sha256: string;
}

/** Fetches one card; failures are values with a `reason` in `error.data`. */
export type CardFetcher = (url: string) => Promise<Result<FetchedCard>>;

/** Limits for card fetches. */
export interface CardFetchOptions {
  /** @default 1500 */
  timeoutMs?: number;
  /** Largest card accepted, in bytes. @default 65536 */
  maxBytes?: number;
}

function failure(
  code: 'TIMEOUT' | 'UNAVAILABLE' | 'PAYLOAD_TOO_LARGE' | 'VALIDATION_FAILED',
  reason: string,
  message: string,
  cause?: unknown,
): Result<FetchedCard> {
  return err(new ReachError(code, message, { data: { reason }, cause }));
}

/** The base64url sha256 of `bytes`, as published in SVCB key65401. */
export function cardDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url');
}

/** A fetcher over HTTP (kept-alive connections) with a timeout and a size limit; a huge body is cut off. */
export function httpCardFetcher(options: CardFetchOptions = {}): CardFetcher {
  const timeoutMs = options.timeoutMs ?? 1500;
  const maxBytes = options.maxBytes ?? 65_536;
  return async (url) => {
    const res = await httpGet(url, { timeoutMs, maxBytes });
    if (!res.ok) {
      if (res.failure === 'timeout')
        return failure('TIMEOUT', 'card_timeout', `card ${url} took longer than ${timeoutMs} ms`);
      if (res.failure === 'too_large')
        return failure('PAYLOAD_TOO_LARGE', 'card_too_large', `card ${url} is larger than ${maxBytes} bytes`);
      const message = `card ${url} is unreachable: ${res.cause?.message ?? 'no answer'}`;
      return failure('UNAVAILABLE', 'card_unreachable', message, res.cause);
    }
    if (res.status < 200 || res.status > 299)
      return failure('UNAVAILABLE', 'card_http_status', `card ${url} answered HTTP ${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch (cause) {
      return failure('VALIDATION_FAILED', 'card_invalid', `card ${url} is not JSON`, cause);
    }
    const parsed = AgentCard.safeParse(json);
    if (!parsed.success)
      return failure('VALIDATION_FAILED', 'card_invalid', `card ${url} is not an agent card`);
    return ok({ card: parsed.data, sha256: cardDigest(res.body) });
  };
}
