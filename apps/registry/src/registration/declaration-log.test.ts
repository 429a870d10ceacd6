import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Declaration } from '@agent-reach/sdk/protocol';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { summarizerDeclaration } from '../testing/fixtures.js';
import { DeclarationLog } from './declaration-log.js';

const declaration = (agent_name: string, version: string) =>
  Declaration.parse(summarizerDeclaration({ agent_name, version }));

describe('DeclarationLog', () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-declarations-'));
    store = await openEmbeddedStore({ path: dir });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The store, counting its list calls. */
  function counted() {
    const lists: string[] = [];
    const wrapped = Object.create(store) as EmbeddedStore;
    wrapped.list = (prefix: string) => {
      lists.push(prefix);
      return store.list(prefix);
    };
    return { wrapped, lists };
  }

  it('claims each version of each agent once, knowing the versions recorded before it started', async () => {
    const before = new DeclarationLog(store, pino({ level: 'silent' }));
    await store.commit({ puts: [before.entry(declaration('planner', '1'), 1000)] });
    await store.commit({ puts: [before.entry(declaration('writer', '3'), 2000)] });

    const { wrapped, lists } = counted();
    const log = new DeclarationLog(wrapped, pino({ level: 'silent' }));
    expect(await log.claim(declaration('planner', '1'))).toBe(false);
    expect(await log.claim(declaration('planner', '2'))).toBe(true);
    expect(await log.claim(declaration('planner', '2'))).toBe(false);
    expect(await log.claim(declaration('writer', '3'))).toBe(false);
    // Concurrent claims of a new agent's version: exactly one wins.
    const claims = await Promise.all([1, 2, 3].map(() => log.claim(declaration('coder', '1'))));
    expect(claims.filter(Boolean)).toHaveLength(1);
    for (let i = 0; i < 20; i++) expect(await log.claim(declaration(`new-agent-${i}`, '1'))).toBe(true);
    // The whole history was read once, not once per agent.
    expect(lists).toEqual(['/reach/declarations/']);
  });

  it('gives a claim back on release, and reads again after a failed read', async () => {
    const { wrapped, lists } = counted();
    const log = new DeclarationLog(wrapped, pino({ level: 'silent' }));
    const list = wrapped.list;
    wrapped.list = () => Promise.reject(new Error('store down'));
    await expect(log.claim(declaration('planner', '1'))).rejects.toThrow('store down');
    wrapped.list = list;
    expect(await log.claim(declaration('planner', '1'))).toBe(true);
    await log.release(declaration('planner', '1'));
    expect(await log.claim(declaration('planner', '1'))).toBe(true);
    expect(lists).toEqual(['/reach/declarations/']);
  });
});
