import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbeddedStore } from '@agent-reach/registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-crash-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('embedded store after a crash', () => {
  it('keeps every acknowledged registration when the process is killed 150 ms after the last one', async () => {
    const count = 500;
    const writer = fileURLToPath(new URL('./embedded-crash-writer.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', writer, dir, String(count)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('acknowledged') && resolve());
      child.once('exit', (code) => reject(new Error(`writer exited with ${code}: ${stderr}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    // The dead writer's lock is stale and is taken over.
    const store = await openEmbeddedStore({ path: dir });
    try {
      expect((await store.list('/reach/instances/')).length).toBe(count);
      expect((await store.list('/reach/declarations/')).length).toBe(count);
      const last = (await store.list('/reach/instances/')).find(
        (kv) => kv.key === `/reach/instances/i-${count - 1}`,
      );
      expect(last?.lease).toBeDefined();
      expect((await store.keepAlive(last!.lease!)).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});
