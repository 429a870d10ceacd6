import { expect, it } from 'vitest';
import { type StoreUnderTest, uniquePrefix } from './harness.js';

/** put, get, list, delete and commit atomicity. */
export function kvContract(ctx: () => StoreUnderTest): void {
  it('puts, gets and lists by prefix, sorted by key', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    const put = await store.commit({
      puts: [
        { key: `${p}b/2`, value: 'two' },
        { key: `${p}a/1`, value: 'one' },
        { key: `${p}b/1`, value: 'uno' },
        { key: `${p}bb`, value: 'x' },
      ],
    });
    expect(put).toEqual({ ok: true, value: undefined });
    expect(await store.get(`${p}a/1`)).toBe('one');
    expect(await store.get(`${p}missing`)).toBeNull();
    expect(await store.list(`${p}b/`)).toEqual([
      { key: `${p}b/1`, value: 'uno' },
      { key: `${p}b/2`, value: 'two' },
    ]);
    expect((await store.list(p)).map((kv) => kv.key)).toEqual([`${p}a/1`, `${p}b/1`, `${p}b/2`, `${p}bb`]);
    expect(await store.list(`${p}nothing/`)).toEqual([]);
  });

  it('lists keys alone by prefix, sorted, whatever their values and leases', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    const lease = await store.grantLease(60_000);
    const record = { id: 'r', note: 'held as its object where the store can' };
    await store.commit({
      puts: [
        { key: `${p}c/2`, value: JSON.stringify(record), source: record },
        { key: `${p}c/1`, value: 'leased', lease },
        { key: `${p}a`, value: 'x' },
        { key: `${p}cc`, value: 'y' },
      ],
    });
    expect(await store.listKeys(`${p}c/`)).toEqual([`${p}c/1`, `${p}c/2`]);
    expect(await store.listKeys(p)).toEqual([`${p}a`, `${p}c/1`, `${p}c/2`, `${p}cc`]);
    expect(await store.listKeys(`${p}nothing/`)).toEqual([]);
    expect(await store.get(`${p}c/2`)).toBe(JSON.stringify(record));
    await store.commit({ deletes: [`${p}c/2`] });
    expect(await store.listKeys(`${p}c`)).toEqual([`${p}c/1`, `${p}cc`]);
  });

  it('overwrites and deletes in one commit', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    await store.commit({
      puts: [
        { key: `${p}x`, value: '1' },
        { key: `${p}y`, value: '1' },
      ],
    });
    const result = await store.commit({
      puts: [{ key: `${p}x`, value: '2' }],
      deletes: [`${p}y`, `${p}never`],
    });
    expect(result.ok).toBe(true);
    expect(await store.list(p)).toEqual([{ key: `${p}x`, value: '2' }]);
  });

  it('reports the lease a key is bound to', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    const lease = await store.grantLease(10_000);
    await store.commit({
      puts: [
        { key: `${p}bound`, value: 'b', lease },
        { key: `${p}free`, value: 'f' },
      ],
    });
    expect(await store.list(p)).toEqual([
      { key: `${p}bound`, value: 'b', lease },
      { key: `${p}free`, value: 'f' },
    ]);
    await store.revokeLease(lease);
  });

  it('fails a commit whole, writing nothing, when a named lease does not exist', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    await store.commit({ puts: [{ key: `${p}keep`, value: 'old' }] });
    const gone = await store.grantLease(10_000);
    await store.revokeLease(gone);
    const live = await store.grantLease(10_000);
    for (const missing of [gone, '7']) {
      const result = await store.commit({
        puts: [
          { key: `${p}free`, value: 'f' },
          { key: `${p}keep`, value: 'new' },
          { key: `${p}live`, value: 'l', lease: live },
          { key: `${p}dead`, value: 'd', lease: missing },
        ],
        deletes: [`${p}keep2`],
      });
      expect(result).toEqual({ ok: false, error: 'lease_not_found' });
    }
    expect(await store.list(p)).toEqual([{ key: `${p}keep`, value: 'old' }]);
    await store.revokeLease(live);
  });

  it('refuses a commit that names one key twice', async () => {
    const { store } = ctx();
    const p = uniquePrefix('kv');
    await expect(
      store.commit({ puts: [{ key: `${p}a`, value: '1' }], deletes: [`${p}a`] }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await store.get(`${p}a`)).toBeNull();
  });

  it('answers STORE_UNAVAILABLE once closed', async () => {
    const { store } = ctx();
    await store.close();
    await expect(store.get('/contract/closed')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(store.commit({ puts: [{ key: '/contract/closed', value: 'x' }] })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
  });
}
