import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConsoleApp } from './create-console-app.js';
import { buildUi, UI_SOURCE_DIR } from './ui-bundle.js';

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? files(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))),
  );
  return nested.flat();
}

describe('the shipped UI', () => {
  it('builds from its TypeScript source into one module that index.html loads, and serves every file it names', async () => {
    const started = performance.now();
    const ui = await buildUi();
    const ms = performance.now() - started;
    expect([...ui.keys()].sort()).toEqual([
      '/app.js',
      '/app.js.map',
      '/favicon.svg',
      '/index.html',
      '/styles.css',
    ]);
    // Fast enough to build at every start.
    expect(ms).toBeLessThan(5000);
    const app = createConsoleApp({
      registryUrl: 'http://127.0.0.1:1',
      orchestratorUrl: 'http://127.0.0.1:1',
      ui: Promise.resolve(ui),
    });
    const html = new TextDecoder().decode(ui.get('/index.html')!.bytes);
    const referenced = [...html.matchAll(/(?:src|href)="([^"#:]+)"/g)].map((m) => `/${m[1]}`);
    expect(referenced).toEqual(expect.arrayContaining(['/app.js', '/styles.css', '/favicon.svg']));
    for (const path of referenced) expect((await app.request(path)).status, path).toBe(200);
  });

  it('holds nothing the CSP refuses: no eval, no Function constructor, no inline handlers or styles', async () => {
    const bundle = new TextDecoder().decode((await buildUi()).get('/app.js')!.bytes);
    expect(bundle).not.toMatch(/\beval\(|new Function\(|\bFunction\(["'`]/);
    const html = await readFile(join(UI_SOURCE_DIR, 'index.html'), 'utf8');
    expect(html).not.toMatch(/<script>|\son[a-z]+=|\sstyle=|<style/);
  });

  it('never writes data through innerHTML', async () => {
    for (const file of await files(join(UI_SOURCE_DIR, 'app'))) {
      const source = await readFile(file, 'utf8');
      expect(source, file).not.toMatch(
        /dangerouslySetInnerHTML|\.(innerHTML|outerHTML)\s*[+]?=|insertAdjacentHTML\(|document\.write\(/,
      );
    }
  });
});
