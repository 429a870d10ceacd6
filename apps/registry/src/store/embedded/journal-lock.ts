import { basename, dirname, join } from 'node:path';
import { takePidLock } from '@agent-reach/sdk/node';

/** The journal file for a configured `storage.path`: a directory, or a `.json` file name base. */
export function journalFileFor(path: string): string {
  if (path.endsWith('.json')) return join(dirname(path), `${basename(path, '.json')}.journal.jsonl`);
  return join(path, 'registry.journal.jsonl');
}

/** Takes the journal's lock file so two stores never write one journal; returns its release. */
export function lockJournal(journalFile: string): () => void {
  return takePidLock(`${journalFile}.lock`, `registry journal ${journalFile}`);
}
