import { createHash } from 'node:crypto';
import { AgentCard, err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';

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

async function readLimited(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The base64url sha256 of `bytes`, as published in SVCB key65401. */
export function cardDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url');
}

/** A fetcher over HTTP with a timeout and a size limit; the body is read as a stream so a huge card is cut off. */
export function httpCardFetcher(options: CardFetchOptions = {}): CardFetcher {
  const timeoutMs = options.timeoutMs ?? 1500;
  const maxBytes = options.maxBytes ?? 65_536;
  return async (url) => {
    let bytes: Uint8Array | null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
      if (!res.ok || res.body === null) {
        await res.body?.cancel();
        return failure('UNAVAILABLE', 'card_http_status', `card ${url} answered HTTP ${res.status}`);
      }
      if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
        await res.body.cancel();
        return failure('PAYLOAD_TOO_LARGE', 'card_too_large', `card ${url} is larger than ${maxBytes} bytes`);
      }
      bytes = await readLimited(res.body, maxBytes);
    } catch (cause) {
      const timedOut = (cause as Error).name === 'TimeoutError';
      return timedOut
        ? failure('TIMEOUT', 'card_timeout', `card ${url} took longer than ${timeoutMs} ms`, cause)
        : failure(
            'UNAVAILABLE',
            'card_unreachable',
            `card ${url} is unreachable: ${(cause as Error).message}`,
            cause,
          );
    }
    if (bytes === null)
      return failure('PAYLOAD_TOO_LARGE', 'card_too_large', `card ${url} is larger than ${maxBytes} bytes`);
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(bytes));
    } catch (cause) {
      return failure('VALIDATION_FAILED', 'card_invalid', `card ${url} is not JSON`, cause);
    }
    const parsed = AgentCard.safeParse(json);
    if (!parsed.success)
      return failure('VALIDATION_FAILED', 'card_invalid', `card ${url} is not an agent card`);
    return ok({ card: parsed.data, sha256: cardDigest(bytes) });
  };
}
