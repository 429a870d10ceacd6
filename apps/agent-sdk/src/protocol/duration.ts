import { z } from 'zod';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `'300ms' | '2s' | '5m' | '1h' | '30d'` or a number of milliseconds; returns milliseconds or null. */
export function parseDuration(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(value);
  if (!match) return null;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2]!] ?? 1));
}

/** A zod schema that accepts `'30s' | number (ms)` and yields milliseconds. */
export const Duration = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === null) {
    ctx.addIssue({
      code: 'custom',
      message: `not a duration: ${JSON.stringify(value)} (use e.g. 300ms, 2s, 5m)`,
    });
    return z.NEVER;
  }
  return ms;
});
