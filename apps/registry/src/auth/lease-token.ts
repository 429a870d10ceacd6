import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBytesPooled } from './random-pool.js';

/** A fresh lease token: 32 random bytes, base64url. */
export function newLeaseToken(): string {
  return randomBytesPooled(32).toString('base64url');
}

/** The sha256 (hex) of a lease token, as stored in the instance record. */
export function hashLeaseToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether `token` hashes to `expectedHashHex`, compared in constant time. */
export function leaseTokenMatches(token: string, expectedHashHex: string): boolean {
  const actual = createHash('sha256').update(token).digest();
  const expected = Buffer.from(expectedHashHex, 'hex');
  return expected.length === actual.length && timingSafeEqual(actual, expected);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
