import { describe, expect, it } from 'vitest';
import { newTraceId, TraceId } from './trace-id.js';

describe('trace ids', () => {
  it('are 32 lower-case hex digits and unique', () => {
    const ids = new Set(Array.from({ length: 100 }, newTraceId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(TraceId.safeParse(id).success).toBe(true);
  });

  it.each(['0'.repeat(32), 'AB'.repeat(16), 'ab'.repeat(15), 'g'.repeat(32)])('refuses %s', (id) => {
    expect(TraceId.safeParse(id).success).toBe(false);
  });
});
