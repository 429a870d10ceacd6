import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { type Logger, pino } from 'pino';
import { prettyFactory } from 'pino-pretty';

// Loaded before tsx in every child: with the IPC channel below, it turns the supervisor's end —
// even a SIGKILL that runs no handler here — into the child's own SIGTERM (no orphans on the ports).
const EXIT_WITH_PARENT = new URL('./exit-with-parent.mjs', import.meta.url).href;

/** One child process the start script runs; its output is turned into log records named after it. */
export interface ServiceSpec {
  name: string;
  /** A TypeScript entry and its arguments, run under node with tsx. */
  args: string[];
  /**
   * The whole command line of a child that is not TypeScript (e.g. `python3 agent.py`) instead; it gets
   * the same IPC channel (`NODE_CHANNEL_FD`) and must stop itself when it closes, as the Python SDK does.
   */
  command?: string[];
  env?: Record<string, string>;
  /** URL that answers 2xx once the process is ready. */
  readyUrl?: string;
  /** Start it again (with backoff) when it exits while the supervisor is not stopping. @default false */
  restart?: boolean;
}

/** How the supervisor logs and restarts. */
export interface SupervisorOptions {
  /** Human-readable lines instead of JSON. @default whether stdout is a terminal */
  pretty?: boolean;
  /** Where each finished line goes. @default stdout */
  write?: (line: string) => void;
  /** First restart delay, doubled per quick crash. @default 500 */
  restartDelayMs?: number;
  /** Longest restart delay. @default 15000 */
  maxRestartDelayMs?: number;
  /** A child that ran this long before it exited starts over at the first delay. @default 30000 */
  stableAfterMs?: number;
}

/** pino's numeric levels, for lines a child wrote without a logger. */
const INFO = 30;
const WARN = 40;

/** Starts child processes, restarts crashed ones, logs their output in one shape, and stops them together. */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private readonly restarts = new Map<string, { attempt: number; timer?: NodeJS.Timeout }>();
  private stopping = false;
  private readonly write: (line: string) => void;
  private readonly format: (record: Record<string, unknown>) => string;
  /** The supervisor's own log (`name: start`), in the same shape as the children's. */
  readonly logger: Logger;

  /**
   * @param stopOrder phases of child names, stopped one phase after another (agents before the
   *   registry they deregister from); children named in no phase are stopped last.
   */
  constructor(
    private readonly stopOrder: string[][] = [],
    private readonly options: SupervisorOptions = {},
  ) {
    const pretty = options.pretty ?? process.stdout.isTTY === true;
    this.write = options.write ?? ((line) => process.stdout.write(line));
    if (pretty) {
      const prettify = prettyFactory({
        colorize: process.stdout.isTTY === true,
        translateTime: 'HH:MM:ss.l',
        ignore: 'pid,hostname,service',
        singleLine: true,
      });
      this.format = (record) => prettify(record);
    } else {
      this.format = (record) => `${JSON.stringify(record)}\n`;
    }
    // The supervisor's own records take the same way out as its children's.
    this.logger = pino({ name: 'start' }, { write: (line: string) => this.emit(JSON.parse(line)) });
  }

  /** Prints one record in the chosen shape. */
  private emit(record: Record<string, unknown>): void {
    this.write(this.format(record));
  }

  start(spec: ServiceSpec): ChildProcess {
    const [program, ...args] = spec.command ?? [
      process.execPath,
      '--import',
      EXIT_WITH_PARENT,
      '--import',
      'tsx',
      ...spec.args,
    ];
    const child = spawn(program!, args, {
      env: { ...process.env, ...spec.env },
      // The 'ipc' channel's closing tells the child that we are gone; it also carries the stop order.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // A process group of its own: Ctrl-C in a terminal signals the whole foreground group at once, and
      // the registry must outlive the agents' deregistrations. Only the supervisor hears it and stops
      // the children in order (a SIGHUP or SIGKILL of the supervisor reaches them through the channel).
      detached: true,
    });
    const startedAt = performance.now();
    const pipe = (stream: NodeJS.ReadableStream, level: number) => {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines)
          if (line.trim() !== '') this.emit(recordOf(line, spec.name, child.pid, level));
      });
    };
    pipe(child.stdout!, INFO);
    pipe(child.stderr!, WARN);
    child.on('exit', (code, signal) => {
      if (this.children.get(spec.name) === child) this.children.delete(spec.name);
      if (this.stopping) return;
      if (spec.restart !== true) {
        this.logger.warn({ service: spec.name, code, signal }, `${spec.name} exited`);
        return;
      }
      this.scheduleRestart(spec, performance.now() - startedAt, code, signal);
    });
    this.children.set(spec.name, child);
    this.logger.info({ service: spec.name, child_pid: child.pid }, `started ${spec.name}`);
    this.shareStopOrder(spec.name, child);
    return child;
  }

  /** Restarts a crashed child after a delay that doubles while it keeps crashing soon after starting. */
  private scheduleRestart(
    spec: ServiceSpec,
    ranMs: number,
    code: number | null,
    signal: string | null,
  ): void {
    const previous = this.restarts.get(spec.name);
    const attempt =
      previous === undefined || ranMs >= (this.options.stableAfterMs ?? 30_000) ? 0 : previous.attempt;
    const delayMs = Math.min(
      this.options.maxRestartDelayMs ?? 15_000,
      (this.options.restartDelayMs ?? 500) * 2 ** attempt,
    );
    this.logger.warn(
      { service: spec.name, code, signal, restart_in_ms: delayMs, attempt: attempt + 1 },
      `${spec.name} exited (${signal ?? code}); restarting in ${delayMs} ms`,
    );
    const timer = setTimeout(() => {
      if (!this.stopping) this.start(spec);
    }, delayMs);
    this.restarts.set(spec.name, { attempt: attempt + 1, timer });
  }

  /** The running child of that name (a restarted one replaces the old). */
  child(name: string): ChildProcess | undefined {
    return this.children.get(name);
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

  /** Waits until `url` answers 2xx, saying what it waits for (and every 5 s that it still does); throws after `timeoutMs`. */
  async waitReady(name: string, url: string, timeoutMs = 30_000): Promise<void> {
    const began = performance.now();
    const deadline = began + timeoutMs;
    let nextNote = began + 5000;
    this.logger.info({ service: name, url }, `waiting for ${name} (${url})`);
    while (performance.now() < deadline) {
      if (!this.children.has(name) && !this.restarts.has(name))
        throw new Error(`${name} exited before it was ready`);
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        if (res.ok) {
          this.logger.info({ service: name, ms: Math.round(performance.now() - began) }, `${name} is ready`);
          return;
        }
      } catch {
        // not listening yet
      }
      if (performance.now() >= nextNote) {
        nextNote += 5000;
        this.logger.info(
          { service: name, url, waited_s: Math.round((performance.now() - began) / 1000) },
          `still waiting for ${name}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms`);
  }

  /**
   * Stops the children in the stop order: each phase's children get SIGTERM together (SIGKILL after
   * 5 s), and the next phase starts once they have all exited. Pending restarts are cancelled.
   */
  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const { timer } of this.restarts.values()) clearTimeout(timer);
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

/**
 * One line of a child's output as a pino record: a pino line keeps its fields (plus `service`),
 * any other JSON object (an agent's `{"ready": …}`) becomes the fields of an info record, and plain
 * text (a crash's stack, say) becomes the message.
 */
export function recordOf(
  line: string,
  service: string,
  pid: number | undefined,
  level: number,
): Record<string, unknown> {
  let parsed: unknown;
  if (line.startsWith('{')) {
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
  }
  const base = { level, time: Date.now(), pid, hostname: hostname(), name: service };
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    const fields = parsed as Record<string, unknown>;
    if (typeof fields.level === 'number' && typeof fields.time === 'number') return { ...fields, service };
    return {
      ...base,
      level: INFO,
      service,
      ...fields,
      msg: typeof fields.msg === 'string' ? fields.msg : Object.keys(fields).join(' '),
    };
  }
  return { ...base, service, msg: line };
}

/** Sends `{exitAfter: pid}`; a child that has already exited needs no order (the error is dropped). */
function tell(child: ChildProcess, pid: number | undefined): void {
  if (pid === undefined || !child.connected) return;
  child.send({ exitAfter: pid }, () => {});
}
