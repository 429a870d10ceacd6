import { ReachError } from './errors.js';

/** Splits `host:port` (or `[v6]:port`) into its parts. */
export function splitHostPort(value: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(value);
  if (!match) throw new ReachError('INVALID_CONFIG', `not host:port: ${value}`);
  return { host: match[1]!, port: Number(match[2]) };
}
