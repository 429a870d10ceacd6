import { describe, expect, it } from 'vitest';
import { createConsoleApp } from './create-console-app.js';

const upstreams = { registryUrl: 'http://127.0.0.1:1', orchestratorUrl: 'http://127.0.0.1:1' };

describe('console readiness', () => {
  it('is ready once its UI is built from the source', async () => {
    const res = await createConsoleApp(upstreams).request('/readyz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ready', checks: { ui: true } });
  });

  it('is not ready, and says why on the UI paths, when the UI cannot be built', async () => {
    const app = createConsoleApp({ ...upstreams, ui: Promise.reject(new Error('main.tsx: syntax error')) });
    const res = await app.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ checks: { ui: false } });
    const page = await app.request('/');
    expect(page.status).toBe(503);
    expect(await page.json()).toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('syntax error'),
    });
  });
});
