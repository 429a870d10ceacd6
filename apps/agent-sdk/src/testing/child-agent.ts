import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The agent-sdk package folder: children run from here so `tsx` and self-imports resolve. */
export const SDK_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** A spawned agent process and what it printed. */
export interface ChildAgent {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs a TypeScript entry file under plain node with the tsx loader (no wrapper process, so signals arrive directly). */
export function spawnAgent(script: string, env: Record<string, string>): ChildAgent {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: SDK_DIR,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}
