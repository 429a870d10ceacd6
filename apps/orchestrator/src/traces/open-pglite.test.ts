import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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

  it('refuses a data directory another store holds, and opens it once that store is closed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-traces-'));
    try {
      const first = await openPgliteTraceStore({ dataDir: dir });
      await expect(openPgliteTraceStore({ dataDir: dir })).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringContaining(`is in use by process ${process.pid}`),
      });
      await first.close();
      const second = await openPgliteTraceStore({ dataDir: dir });
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('says which directory is damaged and what to do, and leaves it unlocked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-traces-'));
    try {
      await (await openPgliteTraceStore({ dataDir: dir })).close();
      await writeFile(join(dir, 'global', 'pg_control'), 'not a control file');
      const damaged = openPgliteTraceStore({ dataDir: dir });
      await expect(damaged).rejects.toMatchObject({
        code: 'STORE_UNAVAILABLE',
        message: expect.stringMatching(/cannot open the PGlite trace data in .*move it aside/),
      });
      await expect(openPgliteTraceStore({ dataDir: dir })).rejects.not.toMatchObject({
        message: expect.stringContaining('in use'),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
