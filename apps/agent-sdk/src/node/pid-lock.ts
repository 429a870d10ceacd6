import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { ReachError } from '../protocol/errors.js';

/** Lock files held by this process (a lock naming our own pid is only stale if absent here). */
const heldHere = new Set<string>();

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `lockFile` (created exclusively, holding this process's pid) so that two processes never
 * write the same on-disk data; a lock left by a process that is gone is taken over. Throws
 * STORE_UNAVAILABLE naming `what` and the owner's pid when a live process holds it. Returns the release.
 */
export function takePidLock(lockFile: string, what: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(lockFile);
      return () => {
        heldHere.delete(lockFile);
        try {
          unlinkSync(lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ReachError('STORE_UNAVAILABLE', `cannot lock ${what}`, { cause: error });
      }
    }
    const owner = Number.parseInt(readFileSync(lockFile, 'utf8').trim(), 10);
    const stale =
      !Number.isInteger(owner) || !pidAlive(owner) || (owner === process.pid && !heldHere.has(lockFile));
    if (!stale) {
      throw new ReachError('STORE_UNAVAILABLE', `${what} is in use by process ${owner}`, {
        data: { lock: lockFile, pid: owner },
      });
    }
    unlinkSync(lockFile);
  }
  throw new ReachError('STORE_UNAVAILABLE', `cannot lock ${what}`);
}
