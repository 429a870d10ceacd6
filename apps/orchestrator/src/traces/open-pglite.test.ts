import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPgliteTraceStore } from './open-pglite.js';

describe('openPgliteTraceStore', () => {
  it('keeps traces in its data directory across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-traces-'));
    try {
      const first = await openPgliteTraceStore({ dataDir: dir });
      const t = await first.createTrace({ task: '持久化' });
      await first.appendEvent(t.id, { type: 'trace_started', data: { task: '持久化' } });
      await first.close();

      const second = await openPgliteTraceStore({ dataDir: dir });
      const detail = await second.getTrace(t.id);
      await second.close();
      expect(detail!.trace.task).toBe('持久化');
      expect(detail!.events.map((e) => e.type)).toEqual(['trace_started']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
