import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ReachError } from '@agent-reach/sdk/protocol';

/** Journal files held by stores in this process (a lock naming our own pid is only stale if absent here). */
const heldHere = new Set<string>();

/** The journal file for a configured `storage.path`: a directory, or a `.json` file name base. */
export function journalFileFor(path: string): string {
  if (path.endsWith('.json')) return join(dirname(path), `${basename(path, '.json')}.journal.jsonl`);
  return join(path, 'registry.journal.jsonl');
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the journal's lock file so two stores never write one journal; returns its release. */
export function lockJournal(journalFile: string): () => void {
  const lockFile = `${journalFile}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(journalFile);
      return () => {
        heldHere.delete(journalFile);
        try {
          unlinkSync(lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new ReachError('STORE_UNAVAILABLE', `cannot lock registry journal ${journalFile}`, {
          cause: error,
        });
      }
    }
    const owner = Number.parseInt(readFileSync(lockFile, 'utf8').trim(), 10);
    const stale =
      !Number.isInteger(owner) || !pidAlive(owner) || (owner === process.pid && !heldHere.has(journalFile));
    if (!stale) {
      throw new ReachError(
        'STORE_UNAVAILABLE',
        `registry journal ${journalFile} is in use by process ${owner}`,
        {
          data: { file: journalFile, pid: owner },
        },
      );
    }
    unlinkSync(lockFile);
  }
  throw new ReachError('STORE_UNAVAILABLE', `cannot lock registry journal ${journalFile}`);
}
