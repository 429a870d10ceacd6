import { type ChildProcess, spawn } from 'node:child_process';

// Loaded before tsx in every child: with the IPC channel below, it turns the supervisor's end —
// even a SIGKILL that runs no handler here — into the child's own SIGTERM (no orphans on the ports).
const EXIT_WITH_PARENT = new URL('./exit-with-parent.mjs', import.meta.url).href;

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

  /**
   * @param stopOrder phases of child names, stopped one phase after another (agents before the
   *   registry they deregister from); children named in no phase are stopped last.
   */
  constructor(private readonly stopOrder: string[][] = []) {}

  start(spec: ServiceSpec): ChildProcess {
    const child = spawn(process.execPath, ['--import', EXIT_WITH_PARENT, '--import', 'tsx', ...spec.args], {
      env: { ...process.env, ...spec.env },
      // The 'ipc' channel's closing tells the child that we are gone; it also carries the stop order.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
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
    this.shareStopOrder(spec.name, child);
    return child;
  }

  /** Tells each pair of children which stops first, so orphans stop in order (exit-with-parent.mjs). */
  private shareStopOrder(name: string, child: ChildProcess): void {
    const phase = this.phaseOf(name);
    for (const [otherName, other] of this.children) {
      const otherPhase = this.phaseOf(otherName);
      if (otherPhase < phase) tell(child, other.pid);
      else if (otherPhase > phase) tell(other, child.pid);
    }
  }

  private phaseOf(name: string): number {
    const index = this.stopOrder.findIndex((phase) => phase.includes(name));
    return index === -1 ? this.stopOrder.length : index;
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
   * Stops the children in the stop order: each phase's children get SIGTERM together (SIGKILL after
   * 5 s), and the next phase starts once they have all exited.
   */
  async stopAll(): Promise<void> {
    this.stopping = true;
    const named = new Set(this.stopOrder.flat());
    const rest = [...this.children.keys()].filter((name) => !named.has(name));
    for (const phase of [...this.stopOrder, rest]) {
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

/** Sends `{exitAfter: pid}`; a child that has already exited needs no order (the error is dropped). */
function tell(child: ChildProcess, pid: number | undefined): void {
  if (pid === undefined || !child.connected) return;
  child.send({ exitAfter: pid }, () => {});
}
