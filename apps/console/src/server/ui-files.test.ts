import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConsoleApp, UI_DIR } from './create-console-app.js';

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? files(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))),
  );
  return nested.flat();
}

describe('the shipped UI', () => {
  const app = createConsoleApp({ registryUrl: 'http://127.0.0.1:1', orchestratorUrl: 'http://127.0.0.1:1' });

  it('serves every file index.html and the modules reference', async () => {
    const html = await readFile(join(UI_DIR, 'index.html'), 'utf8');
    const referenced = [...html.matchAll(/(?:src|href)="([^"#:]+)"/g)].map((m) => `/${m[1]}`);
    const modules = (await files(join(UI_DIR, 'js'))).filter((f) => f.endsWith('.js'));
    for (const file of modules) {
      const source = await readFile(file, 'utf8');
      for (const m of source.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        referenced.push(`/${relative(UI_DIR, join(file, '..', m[1]!))}`);
      }
    }
    expect(referenced.length).toBeGreaterThan(10);
    for (const path of new Set(referenced)) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
    }
  });

  it('never writes data through innerHTML', async () => {
    for (const file of await files(join(UI_DIR, 'js'))) {
      const source = await readFile(file, 'utf8');
      expect(source, file).not.toMatch(
        /\.(innerHTML|outerHTML)\s*[+]?=|insertAdjacentHTML\(|document\.write\(/,
      );
    }
  });
});
