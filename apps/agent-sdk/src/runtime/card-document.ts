import { createHash } from 'node:crypto';
import { type AgentCard as A2ACard, AgentCard as A2ACardCodec } from '@a2a-js/sdk';
import { buildAgentCard, type Declaration, type Endpoint } from '../protocol/index.js';

/** The exact bytes of the served agent card, their sha256 (base64url, DNS-AID cap-sha256) and strong ETag. */
export interface CardDocument {
  /** The card JSON exactly as served. */
  readonly text: string;
  readonly bytes: Uint8Array;
  readonly sha256: string;
  readonly etag: string;
  /** The same card in the A2A SDK's form, for its version checks. */
  readonly a2a: A2ACard;
}

/** Serialises the card once so every response and the registered digest share the same bytes. */
export function cardDocument(declaration: Declaration, endpoint: Endpoint): CardDocument {
  const card = buildAgentCard(declaration, endpoint);
  const text = JSON.stringify(card);
  const bytes = new TextEncoder().encode(text);
  const sha256 = createHash('sha256').update(bytes).digest('base64url');
  return { text, bytes, sha256, etag: `"${sha256}"`, a2a: A2ACardCodec.fromJSON(card) };
}

/** Whether an `If-None-Match` header matches the ETag (RFC 9110 weak comparison, `*` included). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}
