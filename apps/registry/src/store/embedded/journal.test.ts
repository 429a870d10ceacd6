import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Journal, readJournal } from './journal.js';
import { journalFileFor } from './journal-lock.js';
import type { JournalSnapshot } from './journal-records.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const empty = (): JournalSnapshot => ({ nextLease: 5, leases: [], kv: [] });

describe('journalFileFor', () => {
  it('uses a .json path as the base name, and a directory otherwise', () => {
    expect(journalFileFor('./data/registry.json')).toBe('data/registry.journal.jsonl');
    expect(journalFileFor('./data')).toBe('data/registry.journal.jsonl');
  });
});

describe('Journal', () => {
  it('starts with a snapshot and appends records within the flush interval', async () => {
    const file = join(dir, 'j.jsonl');
    const journal = await Journal.create(file, { snapshot: empty, flushIntervalMs: 20 });
    journal.append({ t: 'grant', l: '5', ttl: 1000 });
    expect((await readJournal(file)).records.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await readJournal(file)).records).toEqual([
      { t: 'snap', next: 5, leases: [] },
      { t: 'grant', l: '5', ttl: 1000 },
    ]);
    await journal.close();
    expect(() => journal.append({ t: 'revoke', l: '5' })).toThrow(/closed/);
  });

  it('by default writes what one turn of the event loop appended at the end of that turn', async () => {
    const file = join(dir, 'j.jsonl');
    const journal = await Journal.create(file, { snapshot: empty });
    // Timers are frozen: whatever gets written, gets written without one firing.
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    try {
      journal.append({ t: 'grant', l: '5', ttl: 1000 });
      journal.append({ t: 'revoke', l: '5' });
      for (let turn = 0; turn < 10_000 && (await readJournal(file)).records.length < 3; turn++)
        await new Promise((resolve) => setImmediate(resolve));
      expect((await readJournal(file)).records.slice(1)).toEqual([
        { t: 'grant', l: '5', ttl: 1000 },
        { t: 'revoke', l: '5' },
      ]);
    } finally {
      vi.useRealTimers();
    }
    await journal.close();
  });

  it('rewrites itself as a snapshot once it has grown enough', async () => {
    const file = join(dir, 'j.jsonl');
    const state: JournalSnapshot = { nextLease: 1, leases: [], kv: [] };
    const journal = await Journal.create(file, { snapshot: () => state, compactMinBytes: 500 });
    for (let i = 0; i < 100; i++) {
      state.kv = [['/k', String(i)]];
      journal.append({ t: 'commit', p: [['/k', String(i)]] });
      if (i % 10 === 9) await journal.flush();
    }
    await journal.close();
    const { records } = await readJournal(file);
    expect(records.length).toBeLessThan(25);
    expect(records[0]?.t).toBe('snap');
    const text = await readFile(file, 'utf8');
    expect(text.endsWith('[["/k","99"]]}\n')).toBe(true);
  });

  it('rewrites once two thirds of it are superseded records, never while it only grows with live state', async () => {
    const file = join(dir, 'j.jsonl');
    const state: JournalSnapshot = { nextLease: 1, leases: [], kv: [] };
    const liveBytes = () => JSON.stringify(state.kv).length + 30;
    const journal = await Journal.create(file, { snapshot: () => state, liveBytes, compactMinBytes: 500 });
    // A registration burst: every record adds live state, so a rewrite would only copy it.
    for (let i = 0; i < 100; i++) {
      state.kv.push([`/k/${i}`, 'v']);
      journal.append({ t: 'commit', p: [[`/k/${i}`, 'v']] });
      if (i % 10 === 9) await journal.flush();
    }
    expect((await readJournal(file)).records.length).toBe(101);
    // Churn: overwrites leave superseded records behind, and the journal compacts them away.
    for (let i = 0; i < 300; i++) {
      state.kv[0] = ['/k/0', `value ${i}`];
      journal.append({ t: 'commit', p: [['/k/0', `value ${i}`]] });
      if (i % 10 === 9) await journal.flush();
    }
    await journal.close();
    const { records } = await readJournal(file);
    expect(records[0]?.t).toBe('snap');
    expect(records.length).toBeLessThan(250);
    const text = await readFile(file, 'utf8');
    expect(text).toContain('["/k/0","value 299"]');
    expect(text).not.toContain('"value 0"');
    expect(text).toContain('["/k/99","v"]');
  });

  it('drops a torn last line but refuses a damaged middle line', async () => {
    const file = join(dir, 'j.jsonl');
    await writeFile(file, '{"t":"grant","l":"1","ttl":1000}\n{"t":"commit","p":[["/a"');
    expect(await readJournal(file)).toMatchObject({
      records: [{ t: 'grant', l: '1', ttl: 1000 }],
      appendable: false,
    });
    await writeFile(file, '{"t":"grant","l":"1","ttl":1000}\nnot json\n{"t":"revoke","l":"1"}\n');
    await expect(readJournal(file)).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('continues a clean journal in place, without rewriting it', async () => {
    const file = join(dir, 'j.jsonl');
    const first = await Journal.create(file, { snapshot: empty });
    first.append({ t: 'grant', l: '5', ttl: 1000 });
    await first.close();
    const found = await readJournal(file);
    expect(found.appendable).toBe(true);
    const second = await Journal.create(
      file,
      { snapshot: () => ({ nextLease: 99, leases: [], kv: [] }) },
      found,
    );
    second.append({ t: 'revoke', l: '5' });
    await second.close();
    expect((await readJournal(file)).records).toEqual([
      { t: 'snap', next: 5, leases: [] },
      { t: 'grant', l: '5', ttl: 1000 },
      { t: 'revoke', l: '5' },
    ]);
  });

  it('reads an absent journal as empty', async () => {
    expect(await readJournal(join(dir, 'none.jsonl'))).toEqual({ records: [], appendable: false, bytes: 0 });
  });
});
