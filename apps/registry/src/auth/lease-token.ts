import { hash, timingSafeEqual } from 'node:crypto';
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
  // One-shot hash: no Hash object per heartbeat.
  const actual = hash('sha256', token, 'buffer');
  const expected = Buffer.from(expectedHashHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
