import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Declaration, type DeclarationInput, isReachError } from '@agent-reach/sdk/protocol';
import { ManualClock } from '@agent-reach/sdk/testing';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { summarizerDeclaration } from '../testing/fixtures.js';
import { settle } from '../testing/test-registry.js';
import { DeclarationLog } from './declaration-log.js';

const declaration = (overrides: Partial<DeclarationInput> = {}) =>
  Declaration.parse(summarizerDeclaration(overrides));
const silent = pino({ level: 'silent' });

describe('DeclarationLog', () => {
  let dir: string;
  let store: EmbeddedStore;
  let clock: ManualClock;
  const logs: DeclarationLog[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-declarations-'));
    clock = new ManualClock();
    store = await openEmbeddedStore({ path: dir, clock });
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(replicaId = 'r1', verifyAfterCalls = 3, on = store): Promise<DeclarationLog> {
    const log = await DeclarationLog.start({ store: on, logger: silent, clock, replicaId, verifyAfterCalls });
    logs.push(log);
    return log;
  }

  // Checks and records like a registration does; returns the error code or 'new' / 'known'.
  async function register(log: DeclarationLog, d: Declaration, at = clock.wallNow()): Promise<string> {
    const checked = await log.check(d);
    if (!checked.ok) return checked.error.code;
    if (checked.value.isNew) await store.commit({ puts: [log.entry(d, at)] });
    return checked.value.isNew ? 'new' : 'known';
  }

  it('keeps a version immutable: identical content is fine, other content is DECLARATION_VERSION_CHANGED', async () => {
    const log = await start();
    expect(await register(log, declaration())).toBe('new');
    await settle();
    expect(await register(log, declaration())).toBe('known');
    // The change reason explains a version; it is not part of its content.
    expect(await register(log, declaration({ change_reason: 'said differently' }))).toBe('known');
    expect(await register(log, declaration({ priority: 81 }))).toBe('DECLARATION_VERSION_CHANGED');
    const checked = await log.check(declaration({ description: 'new words' }));
    expect(checked.ok).toBe(false);
    if (!checked.ok) {
      expect(checked.error.data).toMatchObject({ agent_name: 'summarizer-v2', version: '1' });
      expect(checked.error.message).toContain('new version');
    }
    // Key order and defaults written out do not change the content.
    const reordered = Declaration.parse({
      idempotent: true,
      priority: 80,
      ...summarizerDeclaration(),
      substitutable: false,
    });
    expect(await register(log, reordered)).toBe('known');
  });

  it('needs a change reason for every version after the first', async () => {
    const log = await start();
    expect(await register(log, declaration())).toBe('new');
    expect(await register(log, declaration({ version: '2', priority: 90 }))).toBe('CHANGE_REASON_REQUIRED');
    expect(await register(log, declaration({ version: '2', priority: 90, change_reason: 'busier' }))).toBe(
      'new',
    );
    // Another agent's first version needs none.
    expect(await register(log, declaration({ agent_name: 'other-agent' }))).toBe('new');
  });

  it('lets concurrent registrations of a new version record it once, and refuses other content meanwhile', async () => {
    const log = await start();
    const d = declaration({ agent_name: 'coder' });
    const checks = await Promise.all([1, 2, 3].map(() => log.check(d)));
    expect(checks.filter((c) => c.ok && c.value.isNew)).toHaveLength(1);
    const changed = await log.check(declaration({ agent_name: 'coder', priority: 1 }));
    expect(!changed.ok && changed.error.code).toBe('DECLARATION_VERSION_CHANGED');
    // A failed registration gives its claim back.
    log.release(d);
    expect((await log.check(declaration({ agent_name: 'coder', priority: 1 }))).ok).toBe(true);
  });

  it('sees a version another replica recorded, even before its watch delivered it', async () => {
    const a = await start('a');
    const b = await start('b');
    expect(await register(a, declaration())).toBe('new');
    // No settle: b's watch has not delivered a's entry; b reads the store.
    expect(await register(b, declaration({ priority: 10 }))).toBe('DECLARATION_VERSION_CHANGED');
    expect(await register(b, declaration())).toBe('known');
    expect(await register(b, declaration({ version: '2' }))).toBe('CHANGE_REASON_REQUIRED');
  });

  it('holds after a restart: the history is read back from the store', async () => {
    const log = await start();
    expect(await register(log, declaration())).toBe('new');
    await log.close();
    await store.close();
    store = await openEmbeddedStore({ path: dir, clock });
    const again = await start();
    expect(await register(again, declaration({ priority: 5 }))).toBe('DECLARATION_VERSION_CHANGED');
    expect(await register(again, declaration({ version: '2' }))).toBe('CHANGE_REASON_REQUIRED');
    expect(await register(again, declaration())).toBe('known');
  });

  it('verifies a version after enough successful calls, counted over every replica', async () => {
    const a = await start('a', 4);
    const b = await start('b', 4);
    expect(await register(a, declaration())).toBe('new');
    await settle();
    a.countSuccess('summarizer-v2', '1');
    a.countSuccess('summarizer-v2', '1');
    b.countSuccess('summarizer-v2', '1');
    // Unknown versions are not counted.
    a.countSuccess('summarizer-v2', '9');
    await a.flush();
    await b.flush();
    await settle();
    let [entry] = await a.history('summarizer-v2');
    expect(entry).toMatchObject({ verified: false, successful_calls: 3, verified_at: null });
    b.countSuccess('summarizer-v2', '1');
    await b.flush();
    await settle();
    [entry] = await a.history('summarizer-v2');
    expect(entry).toMatchObject({
      verified: true,
      verified_by: 'calls',
      verified_reason: 'served 4 successful calls',
      successful_calls: 4,
    });
    expect(a.book.verificationOf('summarizer-v2', '1')?.verified_by).toBe('calls');
    // Counting stops once verified.
    a.countSuccess('summarizer-v2', '1');
    await a.flush();
    expect((await a.history('summarizer-v2'))[0]!.successful_calls).toBe(4);
  });

  it('keeps call counts across a restart of the same replica', async () => {
    const log = await start('a', 3);
    await register(log, declaration());
    await settle();
    log.countSuccess('summarizer-v2', '1');
    log.countSuccess('summarizer-v2', '1');
    await log.flush();
    await log.close();
    const again = await start('a', 3);
    again.countSuccess('summarizer-v2', '1');
    await again.flush();
    expect((await again.history('summarizer-v2'))[0]).toMatchObject({ verified: true, successful_calls: 3 });
  });

  it('never verifies by calls when verify_after_calls is 0', async () => {
    const log = await start('a', 0);
    await register(log, declaration());
    await settle();
    for (let i = 0; i < 50; i++) log.countSuccess('summarizer-v2', '1');
    await log.flush();
    expect((await log.history('summarizer-v2'))[0]).toMatchObject({ verified: false, successful_calls: 0 });
  });

  it('lets an operator verify a recorded version; an unknown version is NOT_FOUND', async () => {
    const log = await start();
    await register(log, declaration());
    const entry = await log.verify('summarizer-v2', '1', 'ops', 'reviewed the canary');
    expect(entry).toMatchObject({
      verified: true,
      verified_by: 'ops',
      verified_reason: 'reviewed the canary',
    });
    expect(typeof entry.verified_at).toBe('string');
    // Verifying again keeps the first verification.
    expect((await log.verify('summarizer-v2', '1', 'someone-else')).verified_by).toBe('ops');
    const missing = await log.verify('summarizer-v2', '7', 'ops').catch((error: unknown) => error);
    expect(isReachError(missing) && missing.code).toBe('NOT_FOUND');
  });

  it('orders versions for routing: verified newest first, then unverified newest first', async () => {
    const log = await start();
    await register(log, declaration(), 1_000);
    await register(log, declaration({ version: '2', change_reason: 'b', priority: 70 }), 2_000);
    await register(log, declaration({ version: '3', change_reason: 'c', priority: 60 }), 3_000);
    await settle();
    expect(log.preferenceOrder('summarizer-v2')).toEqual(['3', '2', '1']);
    const changes: string[][] = [];
    log.subscribe((agents) => changes.push([...agents]));
    await log.verify('summarizer-v2', '1', 'ops');
    await log.verify('summarizer-v2', '2', 'ops');
    await settle();
    expect(log.preferenceOrder('summarizer-v2')).toEqual(['2', '1', '3']);
    expect(changes.flat()).toContain('summarizer-v2');
  });

  it('removes versions past the retention, but never the newest, the newest verified or a live one', async () => {
    const log = await start('a', 2);
    const day = 86_400_000;
    const d = (version: string, priority: number) =>
      declaration({ version, priority, ...(version === '1' ? {} : { change_reason: `v${version}` }) });
    await register(log, d('1', 10), 1 * day);
    await register(log, d('2', 20), 2 * day);
    await register(log, d('3', 30), 3 * day);
    await register(log, d('4', 40), 4 * day);
    await register(log, d('5', 50), 5 * day);
    await register(log, declaration({ agent_name: 'writer' }), 1 * day);
    await settle();
    await log.verify('summarizer-v2', '2', 'ops');
    log.countSuccess('summarizer-v2', '1');
    await log.flush();
    const live = (agent: string, version: string) => agent === 'summarizer-v2' && version === '3';
    // Kept 2.5 days before day 5: everything recorded before day 2.5 may go.
    expect(await log.collect(live, 5 * day, 2.5 * day)).toBe(1);
    await settle();
    expect((await log.history('summarizer-v2')).map((e) => e.version)).toEqual(['2', '3', '4', '5']);
    // The only version of an agent is its newest: it stays.
    expect((await log.history('writer')).map((e) => e.version)).toEqual(['1']);
    expect(await store.list('/reach/version-calls/summarizer-v2/1/')).toEqual([]);
    // Later, version 4 is old too (not live, not verified, not newest); version 2 stays as the newest verified.
    expect(await log.collect(live, 9 * day, 2.5 * day)).toBe(1);
    await settle();
    expect((await log.history('summarizer-v2')).map((e) => e.version)).toEqual(['2', '3', '5']);
    expect(log.preferenceOrder('summarizer-v2')).toEqual(['2', '5', '3']);
  });

  it('lists every agent history with verification state (allHistory)', async () => {
    const log = await start();
    await register(log, declaration({ agent_name: 'writer' }), 1_000);
    await register(log, declaration(), 1_000);
    await register(log, declaration({ version: '2', change_reason: 'longer inputs', priority: 7 }), 2_000);
    await log.verify('summarizer-v2', '1', 'ops', 'ok');
    const all = await log.allHistory();
    expect(all.map((e) => [e.agent_name, e.version, e.change_reason, e.verified])).toEqual([
      ['summarizer-v2', '1', null, true],
      ['summarizer-v2', '2', 'longer inputs', false],
      ['writer', '1', null, false],
    ]);
    expect(all[0]!.content_sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
