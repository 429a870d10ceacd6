import { describe, expect, it } from 'vitest';
import { closest, editDistance } from './suggest.js';

describe('closest', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('agnets', 'agents')).toBe(1);
    expect(editDistance('zone', 'zone')).toBe(0);
  });

  it('suggests a near command and nothing for a word far from all', () => {
    const names = ['agents', 'agent', 'traces', 'trace', 'zone', 'stats', 'watch'];
    expect(closest('agentz', names)).toBe('agents');
    expect(closest('tracse', names)).toBe('traces');
    expect(closest('Zone', names)).toBe('zone');
    expect(closest('sta', names)).toBe('stats');
    expect(closest('frobnicate', names)).toBeNull();
    expect(closest('x', names)).toBeNull();
  });
});
