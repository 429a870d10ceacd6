import { describe, expect, it } from 'vitest';
import type { TxnOp } from './etcd-unary.js';
import { TxnBatcher } from './txn-batcher.js';

/** A fake etcd: records each transaction's keys and answers only when told. */
function fakeSend() {
  const sent: { keys: string[]; done(): void }[] = [];
  const send = (ops: TxnOp[]) =>
    new Promise<void>((resolve) => {
      sent.push({
        keys: ops.map((op) => String('request_put' in op ? op.request_put.key : op.request_delete_range.key)),
        done: resolve,
      });
    });
  return { sent, send };
}

const put = (key: string): TxnOp => ({
  request_put: { key: Buffer.from(key), value: Buffer.from('v') },
});
const txn = (...keys: string[]) => ({ ops: keys.map(put), keys });
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('TxnBatcher', () => {
  it('sends small batches at once below eagerInFlight, and past it only batches of at least maxOps / 2', async () => {
    const etcd = fakeSend();
    const batcher = new TxnBatcher({
      send: etcd.send,
      isLeaseNotFound: () => false,
      maxOps: 8,
      maxInFlight: 3,
      eagerInFlight: 1,
    });
    const first = batcher.commit(txn('a'));
    expect(etcd.sent.map((t) => t.keys)).toEqual([['a']]);
    // One in flight = eagerInFlight: small commits wait together.
    const waiting = [batcher.commit(txn('b')), batcher.commit(txn('c', 'd'))];
    expect(etcd.sent).toHaveLength(1);
    // Four operations queued = maxOps / 2: they go as one transaction.
    waiting.push(batcher.commit(txn('e')));
    expect(etcd.sent.map((t) => t.keys)).toEqual([['a'], ['b', 'c', 'd', 'e']]);
    const late = batcher.commit(txn('f'));
    expect(etcd.sent).toHaveLength(2);
    // When in flight drops below eagerInFlight, the small remainder goes.
    etcd.sent[0]!.done();
    await first;
    etcd.sent[1]!.done();
    await Promise.all(waiting);
    await settle();
    expect(etcd.sent.map((t) => t.keys)).toEqual([['a'], ['b', 'c', 'd', 'e'], ['f']]);
    etcd.sent[2]!.done();
    await late;
  });

  it('without eagerInFlight sends every batch while fewer than maxInFlight are in flight', () => {
    const etcd = fakeSend();
    const batcher = new TxnBatcher({
      send: etcd.send,
      isLeaseNotFound: () => false,
      maxOps: 8,
      maxInFlight: 2,
    });
    void batcher.commit(txn('a'));
    void batcher.commit(txn('b'));
    void batcher.commit(txn('c'));
    expect(etcd.sent.map((t) => t.keys)).toEqual([['a'], ['b']]);
  });

  it('holds back a commit to a key in flight until that transaction is done', async () => {
    const etcd = fakeSend();
    const batcher = new TxnBatcher({
      send: etcd.send,
      isLeaseNotFound: () => false,
      maxOps: 8,
      maxInFlight: 4,
    });
    const first = batcher.commit(txn('k'));
    const second = batcher.commit(txn('k'));
    expect(etcd.sent).toHaveLength(1);
    etcd.sent[0]!.done();
    await first;
    await settle();
    expect(etcd.sent.map((t) => t.keys)).toEqual([['k'], ['k']]);
    etcd.sent[1]!.done();
    await second;
  });
});
