import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '@agent-reach/sdk/testing';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type EmbeddedStore, openEmbeddedStore } from '../store/embedded/index.js';
import { KEYS } from '../store/keys.js';
import { InstanceIdentities } from './instance-identities.js';

describe('InstanceIdentities.collect', () => {
  let dir: string;
  let store: EmbeddedStore;
  let identities: InstanceIdentities;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-identities-'));
    store = await openEmbeddedStore({ path: dir, clock: new ManualClock() });
    identities = new InstanceIdentities(store, pino({ level: 'silent' }));
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const remember = (ids: string[]) =>
    store.commit({ puts: ids.map((id) => identities.entry(id, 'agent', 'hash')) });

  it('removes ids whose instance has been gone for the retention, and keeps live ones', async () => {
    await remember(['live-1', 'gone-1']);
    const isLive = (id: string) => id === 'live-1';
    expect(await identities.collect(isLive, 0, 1000)).toBe(0);
    expect(await identities.collect(isLive, 999, 1000)).toBe(0);
    expect(await identities.collect(isLive, 1000, 1000)).toBe(1);
    expect(await store.get(KEYS.identity('gone-1'))).toBeNull();
    expect(await store.get(KEYS.identity('live-1'))).not.toBeNull();
  });

  it('puts each identity with its object as the source, and a pass reads keys, not records', async () => {
    const put = identities.entry('id-1', 'agent', 'hash');
    expect(put.source).toEqual({ instance_id: 'id-1', agent_name: 'agent', lease_token_hash: 'hash' });
    expect(put.value).toBe(JSON.stringify(put.source));
    await store.commit({ puts: [put] });
    expect(await store.get(KEYS.identity('id-1'))).toBe(put.value);
    const list = vi.spyOn(store, 'list');
    const listKeys = vi.spyOn(store, 'listKeys');
    expect(await identities.collect(() => true, 0, 1000)).toBe(0);
    expect(listKeys).toHaveBeenCalledWith(KEYS.identitiesPrefix);
    expect(list).not.toHaveBeenCalled();
  });

  it("after a restart, holds a loaded identity again only when its text is the record's", async () => {
    await remember(['a', 'b']);
    const keep = vi.spyOn(store, 'keepAsSource');
    identities.holdLoaded({ instance_id: 'a', agent_name: 'agent', lease_token_hash: 'hash' });
    identities.holdLoaded({ instance_id: 'b', agent_name: 'other', lease_token_hash: 'hash' });
    expect(keep.mock.calls.map(([key, value]) => [key, value])).toEqual([
      [KEYS.identity('a'), identities.entry('a', 'agent', 'hash').value],
      [KEYS.identity('b'), identities.entry('b', 'other', 'hash').value],
    ]);
    // Whatever is held, the stored texts read back unchanged.
    expect(await store.get(KEYS.identity('a'))).toBe(identities.entry('a', 'agent', 'hash').value);
    expect(await store.get(KEYS.identity('b'))).toBe(identities.entry('b', 'agent', 'hash').value);
  });

  it('lets other work run between parts of a pass over many ids', async () => {
    await remember(Array.from({ length: 3000 }, (_, i) => `live-${i}`));
    let done = false;
    let ranDuringPass = false;
    setImmediate(() => {
      ranDuringPass = !done;
    });
    expect(await identities.collect(() => true, 0, 1000)).toBe(0);
    done = true;
    expect(ranDuringPass).toBe(true);
  });
});
