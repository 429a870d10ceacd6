import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DailyConflictReport } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { FakeInstanceSource } from '../testing/fake-instance-source.js';
import { testInstance } from '../testing/routing-instances.js';
import { ConflictReporter, conflictReportKey } from './conflict-report.js';
import { ConflictBook, toConflictView } from './conflicts.js';

describe('ConflictBook', () => {
  it('finds different agents declaring one operation in one domain at one priority, none substitutable', () => {
    const source = new FakeInstanceSource();
    const clock = new ManualClock();
    const book = new ConflictBook(source, clock);
    source.put(
      testInstance('alpha-1', {
        operations: { summarize: { constraints: { max_tokens: 5000, output_formats: ['text', 'json'] } } },
      }),
      testInstance('alpha-2', { operations: { summarize: { constraints: { output_formats: ['text'] } } } }),
      testInstance('beta-1', {
        operations: { summarize: { constraints: { max_tokens: 3000, output_formats: ['json'] } } },
      }),
      // Not in conflict: other priority, substitutable, other domain, disjoint output formats.
      testInstance('gamma-1', { priority: 60 }),
      testInstance('delta-1', { substitutable: true }),
      testInstance('eps-1', { domain: 'other' }),
      testInstance('zeta-1', { operations: { summarize: { constraints: { output_formats: ['csv'] } } } }),
    );
    const [conflict, ...rest] = book.list();
    expect(rest).toEqual([]);
    expect(conflict).toMatchObject({
      domain: 'text_processing',
      operation: 'summarize',
      priority: 50,
      agents: ['alpha', 'beta'],
      instances: ['alpha-1', 'alpha-2', 'beta-1'],
    });
    // alpha (text, json over its two instances) and beta (json) overlap in json; zeta (csv) overlaps neither.
    expect(conflict!.overlap).toEqual({ operation: 'summarize', output_formats: ['json'], max_tokens: 3000 });
    expect(book.conflictOf('text_processing', 'summarize', 50, 'beta')?.key).toBe(conflict!.key);
    expect(book.conflictOf('text_processing', 'summarize', 50, 'zeta')).toBeUndefined();
    // Another replica of an offer alpha has (no recompute): the conflict lists it all the same.
    source.put(
      testInstance('alpha-0', { operations: { summarize: { constraints: { output_formats: ['text'] } } } }),
    );
    expect(book.list()[0]!.instances).toEqual(['alpha-0', 'alpha-1', 'alpha-2', 'beta-1']);
    // An instance of alpha that declares no formats accepts any, so alpha now overlaps zeta too.
    source.put(testInstance('alpha-3'));
    expect(book.list().map((c) => c.agents)).toEqual([['alpha', 'beta', 'zeta']]);
  });

  it('follows puts, moves and removals exactly as a book built from scratch would', () => {
    const source = new FakeInstanceSource();
    const book = new ConflictBook(source, new ManualClock());
    const formats = [undefined, ['text'], ['json'], ['text', 'json']] as const;
    let withConflicts = 0;
    // By key: first-seen times (and so list order) legitimately differ from a fresh book's.
    const view = (b: ConflictBook) =>
      b
        .list()
        .map(({ key, instances, overlap }) => ({ key, instances, overlap }))
        .sort((a, b) => a.key.localeCompare(b.key));
    for (let step = 0; step < 200; step += 1) {
      const id = `${['alpha', 'beta', 'gamma'][step % 3]}-${step % 7}`;
      if (step % 5 === 4) source.remove(id);
      else {
        const output_formats = formats[(step * 7) % 4];
        source.put(
          testInstance(id, {
            priority: 50 + (Math.floor(step / 6) % 2) * 10,
            substitutable: step % 11 === 0,
            operations: {
              [`op${Math.floor(step / 3) % 2}`]: {
                constraints: output_formats ? { output_formats: [...output_formats] } : {},
              },
            },
          }),
        );
      }
      const current = view(book);
      if (current.length > 0) withConflicts += 1;
      expect(current).toEqual(view(new ConflictBook(source, new ManualClock())));
    }
    // The sequence must actually exercise conflicts, not only empty books.
    expect(withConflicts).toBeGreaterThan(20);
  });

  it('keeps the first-seen time while the conflict lasts and forgets it once resolved', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2025-03-01T10:00:00Z'));
      const source = new FakeInstanceSource();
      const book = new ConflictBook(source, new ManualClock());
      const changes = vi.fn();
      book.subscribe(changes);
      source.put(testInstance('alpha-1'), testInstance('beta-1'));
      expect(book.list()).toHaveLength(1);
      vi.setSystemTime(new Date('2025-03-01T11:00:00Z'));
      source.put(testInstance('alpha-2'));
      expect(toConflictView(book.list()[0]!).since).toBe('2025-03-01T10:00:00.000Z');
      expect(changes).toHaveBeenCalledTimes(1);
      source.remove('beta-1');
      expect(book.list()).toEqual([]);
      expect(changes).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('ConflictReporter', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-conflicts-'));
    store = await openEmbeddedStore({ path: dir });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets the leader keep a daily report of every conflict seen that day, and only the leader', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-03-01T09:00:00Z'));
    const source = new FakeInstanceSource();
    const clock = new ManualClock();
    const book = new ConflictBook(source, clock);
    let leader = false;
    const reporter = new ConflictReporter({ book, store, clock, isLeader: () => leader });
    source.put(testInstance('alpha-1'), testInstance('beta-1'));
    expect(await reporter.update()).toBe(false);
    expect(await store.get(conflictReportKey('2025-03-01'))).toBeNull();
    leader = true;
    expect(await reporter.update()).toBe(true);
    expect(await reporter.update()).toBe(false);
    // The conflict ends, another starts: the day's report keeps both.
    source.remove('beta-1');
    source.put(
      testInstance('gamma-1', { operations: { translate: {} } }),
      testInstance('delta-1', { operations: { translate: {} } }),
    );
    expect(await reporter.update()).toBe(true);
    const report = DailyConflictReport.parse(JSON.parse((await store.get(conflictReportKey('2025-03-01')))!));
    expect(report.date).toBe('2025-03-01');
    expect(report.conflicts.map((c) => [c.capability, c.agents])).toEqual([
      ['summarize', ['alpha', 'beta']],
      ['translate', ['delta', 'gamma']],
    ]);
    expect(await reporter.read('2025-03-01')).toEqual(report);
    // A new UTC day starts a new report with only what is live.
    vi.setSystemTime(new Date('2025-03-02T00:00:01Z'));
    expect(reporter.today()).toBe('2025-03-02');
    await reporter.update();
    expect((await reporter.read('2025-03-02'))!.conflicts.map((c) => c.capability)).toEqual(['translate']);
    expect(await reporter.read('2025-02-28')).toBeNull();
  });
});
