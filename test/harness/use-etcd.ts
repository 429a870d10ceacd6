import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll } from 'vitest';
import { type RunningEtcd, startEtcd } from './etcd.js';

/** The real etcd of one test file, and a plain etcd3 client on it for looking at what landed. */
export interface FileEtcd {
  readonly etcd: RunningEtcd;
  readonly raw: Etcd3;
}

/**
 * Starts a real etcd before the file's tests and stops it after them (call it at the top of the file,
 * before hooks that need etcd: vitest runs `afterAll` hooks in reverse, so theirs run before this stop).
 */
export function useEtcd(): FileEtcd {
  let etcd: RunningEtcd | undefined;
  let raw: Etcd3 | undefined;
  beforeAll(async () => {
    etcd = await startEtcd();
    raw = new Etcd3({ hosts: etcd.endpoint });
  });
  afterAll(async () => {
    raw?.close();
    await etcd?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useEtcd: etcd is only there while the file’s tests run');
    return value;
  };
  return {
    get etcd() {
      return started(etcd);
    },
    get raw() {
      return started(raw);
    },
  };
}
