import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from './create-console-app.js';

const upstreams = { registryUrl: 'http://127.0.0.1:1', orchestratorUrl: 'http://127.0.0.1:1' };

describe('console readiness', () => {
  it('is ready when its UI is there', async () => {
    const res = await createConsoleApp(upstreams).request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { ui: true } });
  });

  it('is not ready when the UI folder has no index.html', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-ui-'));
    try {
      const res = await createConsoleApp({ ...upstreams, uiDir: dir }).request('/readyz');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ checks: { ui: false } });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
