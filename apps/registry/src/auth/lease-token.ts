import { hash } from 'node:crypto';
import { randomBytesPooled } from './random-pool.js';

/** A fresh lease token: 32 random bytes, base64url. */
export function newLeaseToken(): string {
  return randomBytesPooled(32).toString('base64url');
}

/** The sha256 (hex) of a lease token, as stored in the instance record. */
export function hashLeaseToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Whether `token` hashes to `expectedHashHex`, compared in constant time. */
export function leaseTokenMatches(token: string, expectedHashHex: string): boolean {
  // Compared as hex text, so a heartbeat allocates no Buffers (one-shot hash, no decode of the stored hash).
  const actual = hash('sha256', token, 'hex');
  if (expectedHashHex.length !== actual.length) return false;
  let diff = 0;
  // No early exit. A-F are lower-cased, as the hex decode this replaced accepted them too.
  for (let i = 0; i < actual.length; i++) {
    const c = expectedHashHex.charCodeAt(i);
    diff |= actual.charCodeAt(i) ^ (c >= 0x41 && c <= 0x46 ? c | 0x20 : c);
  }
  return diff === 0;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
