import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { takePidLock } from './pid-lock.js';

describe('takePidLock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reach-lock-'));
  afterEach(() => rmSync(join(dir, 'data.lock'), { force: true }));

  it('writes this pid, refuses a second holder while held, and can be taken again once released', () => {
    const lock = join(dir, 'data.lock');
    const release = takePidLock(lock, 'the data');
    expect(readFileSync(lock, 'utf8')).toBe(String(process.pid));
    expect(() => takePidLock(lock, 'the data')).toThrow(
      expect.objectContaining({
        code: 'STORE_UNAVAILABLE',
        message: `the data is in use by process ${process.pid}`,
      }),
    );
    release();
    expect(existsSync(lock)).toBe(false);
    takePidLock(lock, 'the data')();
  });

  it('takes over a lock left by a process that is gone, or one that holds no pid', () => {
    const lock = join(dir, 'data.lock');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(lock, gone.stdout.toString());
    takePidLock(lock, 'the data')();
    writeFileSync(lock, 'garbage');
    takePidLock(lock, 'the data')();
  });

  it('refuses a lock held by another live process', () => {
    const lock = join(dir, 'data.lock');
    writeFileSync(lock, String(process.ppid));
    expect(() => takePidLock(lock, 'the data')).toThrow(`the data is in use by process ${process.ppid}`);
  });
});
