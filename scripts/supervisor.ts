import { type ChildProcess, spawn } from 'node:child_process';

/** One child process the start script runs, with its output prefixed by name. */
export interface ServiceSpec {
  name: string;
  args: string[];
  env?: Record<string, string>;
  /** URL that answers 2xx once the process is ready. */
  readyUrl?: string;
}

/** Starts child processes, prefixes their output, and stops them all together. */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private stopping = false;

  start(spec: ServiceSpec): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', ...spec.args], {
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const prefix = `[${spec.name}] `;
    const pipe = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) out.write(`${prefix}${line}\n`);
      });
    };
    pipe(child.stdout!, process.stdout);
    pipe(child.stderr!, process.stderr);
    child.on('exit', (code, signal) => {
      this.children.delete(spec.name);
      if (!this.stopping) process.stderr.write(`${prefix}exited (${signal ?? code})\n`);
    });
    this.children.set(spec.name, child);
    return child;
  }

  /** Waits until `url` answers 2xx, or throws after `timeoutMs`. */
  async waitReady(name: string, url: string, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (performance.now() < deadline) {
      if (!this.children.has(name)) throw new Error(`${name} exited before it was ready`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
  }

  /**
   * Stops the children in phases: each phase's children get SIGTERM together (SIGKILL after 5 s), and
   * the next phase starts once they have all exited — agents before the registry they deregister from.
   * Children named in no phase are stopped last.
   */
  async stopAll(phases: string[][] = []): Promise<void> {
    this.stopping = true;
    const named = new Set(phases.flat());
    for (const phase of [...phases, [...this.children.keys()].filter((name) => !named.has(name))]) {
      await Promise.all(phase.map((name) => this.stopOne(name)));
    }
  }

  private stopOne(name: string): Promise<void> {
    const child = this.children.get(name);
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
