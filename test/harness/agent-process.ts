import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import type { InstanceView } from '@agent-reach/sdk/protocol';
import {
  type ChildExit,
  exitOf,
  isRunning,
  LineCollector,
  pollUntil,
  signalAndWait,
  trackChild,
} from './child-output.js';
import { REPO_ROOT } from './registry-process.js';

/** The SDK's sample agents (seed article 3.2), each one command. */
export const SAMPLE_AGENTS = {
  'summarizer-v2': join(REPO_ROOT, 'apps/agent-sdk/examples/summarizer-v2/main.ts'),
  translator: join(REPO_ROOT, 'apps/agent-sdk/examples/translator/main.ts'),
  'fallback-summarizer': join(REPO_ROOT, 'apps/agent-sdk/examples/fallback-summarizer/main.ts'),
} as const;

/** What an SDK agent prints on stdout once the registry confirmed it (`{"ready": …}`). */
export interface AgentReady {
  instanceId: string;
  /** The agent's base URL. */
  url: string;
  cardSha256: string;
  heartbeatIntervalMs: number;
  declarationVersion: string;
}

/** How to start an SDK agent process. */
export interface AgentProcessOptions {
  /** A TypeScript or JavaScript entry built on `AgentRuntime`, run under `node --import tsx`. */
  script: string;
  /** The whole command line instead (e.g. `python3 agent.py` for a Python agent). @default node --import tsx <script> */
  command?: readonly string[];
  registryUrl: string;
  registryToken?: string;
  /** More environment for the agent (e.g. a fixture's knobs). */
  env?: Record<string, string>;
}

const STARTUP_TIMEOUT_MS = 60_000;

/** An SDK agent as a real process, reading `REACH_CONTROL_PLANE_URL`, `PORT` and `REACH_REGISTRY_TOKEN`. */
export class AgentProcess {
  readonly stdout = new LineCollector();
  readonly stderr = new LineCollector();
  /** Resolves when the process has exited. */
  readonly exited: Promise<ChildExit>;

  private constructor(
    readonly child: ChildProcess,
    readonly registryUrl: string,
  ) {
    trackChild(child);
    this.stdout.attach(child.stdout);
    this.stderr.attach(child.stderr);
    this.exited = exitOf(child);
  }

  /** Spawns the agent; it starts serving and registering on its own. */
  static spawn(options: AgentProcessOptions): AgentProcess {
    const env: Record<string, string | undefined> = {
      ...process.env,
      REACH_CONTROL_PLANE_URL: options.registryUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      ...options.env,
    };
    if (options.registryToken !== undefined) env.REACH_REGISTRY_TOKEN = options.registryToken;
    const [program, ...args] = options.command ?? [process.execPath, '--import', 'tsx', options.script];
    const child = spawn(program!, args, {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new AgentProcess(child, options.registryUrl);
  }

  /** Waits for the agent's `{"ready": …}` line, i.e. until the registry has confirmed the registration. */
  ready(timeoutMs = STARTUP_TIMEOUT_MS): Promise<AgentReady> {
    return pollUntil(
      () => {
        const line = this.stdout.lines.find((l) => l.startsWith('{"ready"'));
        if (line) return (JSON.parse(line) as { ready: AgentReady }).ready;
        if (!isRunning(this.child))
          throw new Error(`agent exited before it was ready:\n${this.stderr.tail()}`);
        return undefined;
      },
      timeoutMs,
      () => `agent not ready:\n${this.stderr.tail()}`,
    );
  }

  /** Waits until the agent is ready and `GET /v1/agents` lists an instance at its endpoint; returns both. */
  async registered(timeoutMs = STARTUP_TIMEOUT_MS): Promise<{ ready: AgentReady; view: InstanceView }> {
    const ready = await this.ready(timeoutMs);
    const view = await pollUntil(
      () => this.listed(),
      10_000,
      () => `no instance at ${ready.url} appeared in GET /v1/agents`,
    );
    return { ready, view };
  }

  /** The instance `GET /v1/agents` lists at this agent's endpoint now (its id changes if it re-registers). */
  async listed(): Promise<InstanceView | undefined> {
    const line = this.stdout.lines.find((l) => l.startsWith('{"ready"'));
    if (!line) return undefined;
    const port = Number(new URL((JSON.parse(line) as { ready: AgentReady }).ready.url).port);
    try {
      const res = await fetch(`${this.registryUrl}/v1/agents`, { signal: AbortSignal.timeout(5_000) });
      if (!res.ok) return undefined;
      const { instances } = (await res.json()) as { instances: InstanceView[] };
      return instances.find((view) => view.endpoint.port === port);
    } catch {
      return undefined; // the registry is down (e.g. restarting)
    }
  }

  /** Waits until the agent's listed instance has an accepted heartbeat and is healthy (after any re-registration). */
  heartbeating(timeoutMs = 20_000): Promise<InstanceView> {
    return pollUntil(
      async () => {
        const view = await this.listed();
        return view && view.last_seq >= 1 && view.state === 'healthy' ? view : undefined;
      },
      timeoutMs,
      () => `agent never heartbeated; its log:\n${this.stderr.tail()}`,
      100,
    );
  }

  /** Graceful stop: SIGTERM (the SDK deregisters and exits 0). */
  term(): Promise<ChildExit> {
    return signalAndWait(this.child, 'SIGTERM');
  }

  /** Crash: SIGKILL, so nothing deregisters. */
  kill(): Promise<ChildExit> {
    return signalAndWait(this.child, 'SIGKILL');
  }
}
