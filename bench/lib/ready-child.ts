import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** A bench helper process that printed one `{"ready": …}` line on stdout. */
export interface ReadyChild<T> {
  ready: T;
  pid: number;
  stop(): Promise<void>;
}

/** Runs a TypeScript script under `node --import tsx` and waits (bounded) for its `{"ready": …}` line. */
export async function spawnReady<T>(
  script: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ReadyChild<T>> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  const ready = await new Promise<T>((resolveReady, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${stderr}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) {
        clearTimeout(timer);
        resolveReady((JSON.parse(line) as { ready: T }).ready);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code}) before it was ready:\n${stderr}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { ready, pid: child.pid!, stop };
}
