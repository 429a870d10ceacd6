import type { ChildProcess } from 'node:child_process';

/** How a child process ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const alive = new Set<ChildProcess>();
// A test run that dies must not leave registries or agents behind.
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/** Remembers a spawned child so it is killed when the test process exits. */
export function trackChild(child: ChildProcess): void {
  alive.add(child);
  child.once('exit', () => alive.delete(child));
}

/** Resolves once the child has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<ChildExit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** True while the child has not exited. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Collects a stream's text, split into complete lines. */
export class LineCollector {
  readonly lines: string[] = [];
  private partial = '';

  /** Attaches to a readable stream of the child. */
  attach(stream: NodeJS.ReadableStream | null): void {
    // A previous process's unfinished last line stays a line of its own.
    if (this.partial.length > 0) this.lines.push(this.partial);
    this.partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = this.partial + chunk.toString('utf8');
      const parts = text.split('\n');
      this.partial = parts.pop() ?? '';
      for (const line of parts) if (line.length > 0) this.lines.push(line);
    });
  }

  /** The last `count` lines, for failure messages. */
  tail(count = 30): string {
    return [...this.lines.slice(-count), this.partial].filter(Boolean).join('\n');
  }

  /** Every line that parses as a JSON object (pino and the SDK log JSON lines). */
  json(): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    for (const line of this.lines) {
      if (!line.startsWith('{')) continue;
      try {
        out.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A line that only looks like JSON is not a log record.
      }
    }
    return out;
  }
}

/** Sends `signal` and waits for the exit; SIGKILLs after `graceMs` if the child is still there. */
export async function signalAndWait(
  child: ChildProcess,
  signal: NodeJS.Signals,
  graceMs = 15_000,
): Promise<ChildExit> {
  const exited = exitOf(child);
  if (!isRunning(child)) return exited;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` every `everyMs` until it returns a value other than undefined; throws `describe()` on timeout. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  describe: () => string,
  everyMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
