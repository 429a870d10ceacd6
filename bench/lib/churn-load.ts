import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { PacedResult } from './paced.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A registered bench instance: its id, lease token and last heartbeat seq. */
export interface ChurnInstance {
  id: string;
  token: string;
}

/** What the churn load process offers (see `churn-load-main.ts`). */
export interface ChurnLoadSpec {
  url: string;
  seconds: number;
  rates: { register: number; deregister: number; heartbeat: number };
  /** Registration `i` of the run sends `registrationBody(firstBody + i)`. */
  firstBody: number;
  /** One registration in this many is reported to the parent to be followed in DNS (and never deregistered). */
  lagEvery: number;
  /** Deregistered first, in order; then instances registered during the run, oldest first. */
  deregister: ChurnInstance[];
  /** Heartbeated round-robin. */
  beating: ChurnInstance[];
  /** Each instance's first heartbeat seq in this run (1, or one past a previous run's last). */
  firstSeq: number;
}

/** What the load process measured, per kind of request. */
export interface ChurnLoadResult {
  registrations: PacedResult;
  deregistrations: PacedResult;
  heartbeats: PacedResult;
  /** Heartbeats counted as answered that were answered stale: a later seq overtook them on another socket. */
  staleHeartbeats: number;
}

/** Messages of the load process to the bench. */
export type ChurnLoadMessage =
  | { ready: true }
  | { registered: string; at: number }
  | { done: ChurnLoadResult };

/** The churn load process, ready to start. */
export interface ChurnLoad {
  pid: number;
  /** Starts the load; `onRegistered` gets each followed instance and the `machineMs()` its 201 arrived. */
  run(onRegistered: (id: string, at: number) => void): Promise<ChurnLoadResult>;
  stop(): Promise<void>;
}

/**
 * Starts the paced HTTP load (registrations, deregistrations, heartbeats) in a process of its own, so
 * it neither shares an event loop with the bench's DNS probes nor hides its CPU in the bench's.
 */
export async function startChurnLoad(spec: ChurnLoadSpec, specFile: string): Promise<ChurnLoad> {
  writeFileSync(specFile, JSON.stringify(spec));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', resolve(ROOT, 'bench/lib/churn-load-main.ts'), specFile],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  const next = <T>(pick: (m: ChurnLoadMessage) => T | undefined, onOther?: (m: ChurnLoadMessage) => void) =>
    new Promise<T>((resolveNext, reject) => {
      const onMessage = (m: ChurnLoadMessage) => {
        const value = pick(m);
        if (value === undefined) return onOther?.(m);
        child.off('message', onMessage).off('exit', onExit);
        resolveNext(value);
      };
      const onExit = (code: number | null) => reject(new Error(`churn load process exited (${code})`));
      child.on('message', onMessage).once('exit', onExit);
    });
  await next((m) => ('ready' in m ? true : undefined)).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    pid: child.pid!,
    run: (onRegistered) => {
      const done = next(
        (m) => ('done' in m ? m.done : undefined),
        (m) => {
          if ('registered' in m) onRegistered(m.registered, m.at);
        },
      );
      child.send('go');
      return done;
    },
    stop,
  };
}
