import { createHash } from 'node:crypto';
import { err, ok, ReachError, type Result } from '@agent-reach/sdk/protocol';

/** A card as fetched: the exact bytes and their sha256 (base64url, DNS-AID cap-sha256). */
export interface FetchedCard {
  bytes: Buffer;
  sha256: string;
}

/** Limits of one card fetch. */
export interface CardFetchLimits {
  /** @default 3000 */
  timeoutMs: number;
  /** Largest card accepted, in bytes; a larger body is cut off. @default 262144 */
  maxBytes: number;
}

/** Fetches a card URL; failures are values with CARD_UNREACHABLE or CARD_TOO_LARGE. */
export type CardFetch = (url: string, limits: CardFetchLimits) => Promise<Result<FetchedCard>>;

const unreachable = (url: string, why: string, cause?: unknown) =>
  err(
    new ReachError('CARD_UNREACHABLE', `card ${url} is unreachable: ${why}`, {
      data: { card_url: url },
      cause,
    }),
  );

/** `fetch` with a deadline over the whole body and a byte limit counted as the body streams in. */
export const httpCardFetch: CardFetch = async (url, limits) => {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'error', headers: { accept: 'application/json' } });
  } catch (cause) {
    const why = signal.aborted
      ? `no answer within ${limits.timeoutMs} ms`
      : ((cause as Error).message ?? 'no answer');
    return unreachable(url, why, cause);
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => undefined);
    return unreachable(url, `HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const tooLarge = () =>
    err(
      new ReachError('CARD_TOO_LARGE', `card ${url} is larger than ${limits.maxBytes} bytes`, {
        data: { card_url: url, max_bytes: limits.maxBytes },
      }),
    );
  if (declared > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const reader = response.body?.getReader();
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      size += chunk.value.byteLength;
      if (size > limits.maxBytes) {
        await reader?.cancel().catch(() => undefined);
        return tooLarge();
      }
      chunks.push(Buffer.from(chunk.value));
    }
  } catch (cause) {
    return unreachable(
      url,
      signal.aborted ? `the body took longer than ${limits.timeoutMs} ms` : 'the body broke off',
      cause,
    );
  }
  const bytes = Buffer.concat(chunks);
  return ok({ bytes, sha256: createHash('sha256').update(bytes).digest('base64url') });
};
