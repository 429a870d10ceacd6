import { withTimeout } from '../clock/index.js';
import { ReachError, type RegisterResponse } from '../protocol/index.js';
import type { HealthStatus } from './agent-app.js';
import type { CardDocument } from './card-document.js';
import { loadDeclaration } from './declaration-file.js';
import { entrypoint, handlerOf } from './entrypoint.js';
import type { HeartbeatEvent } from './heartbeat-loop.js';
import type { InvokeHandler } from './invoke-context.js';
import { registerUntilConfirmed } from './registrar.js';
import {
  assemble,
  baseUrl,
  describeRegistration,
  type Running,
  type RuntimeRegistration,
  registerRequest,
} from './runtime-assembly.js';
import { type AgentRuntimeOptions, compileRuntimeOptions } from './runtime-options.js';
import { stopOnSignals } from './signal-handlers.js';

export type { RuntimeRegistration } from './runtime-assembly.js';

type Phase = 'idle' | 'starting' | 'ready' | 'draining' | 'stopped';
const HEALTH: Record<Phase, HealthStatus> = {
  idle: 'starting',
  starting: 'starting',
  ready: 'ok',
  draining: 'draining',
  stopped: 'draining',
};

/**
 * The agent side of Agent Reach: validates the declaration, serves `/health`, the agent card and
 * the A2A bindings (JSON-RPC, HTTP+JSON), registers and waits for the registry's confirmation, heartbeats from a worker
 * thread, re-registers when the registry forgets the instance, and deregisters on stop.
 *
 * @example
 * ```ts
 * const runtime = new AgentRuntime({ agentName: 'summarizer-v2', controlPlaneUrl, capabilityFile: './declaration.json' });
 * class Summarizer {
 *   @runtime.entrypoint
 *   handle(ctx: InvokeContext) { return { summary: summarize(ctx.input) }; }
 * }
 * runtime.installSignalHandlers(); // SIGTERM/SIGINT: deregister, drain, exit 0
 * await runtime.start(new Summarizer()); // or runtime.start(async (ctx) => ...)
 * ```
 */
export class AgentRuntime {
  /**
   * Standard (TS 5, stage 3) method decorator marking the method `start(instance)` will call for each
   * invoke; one per class. A property, so `@runtime.entrypoint` works without binding.
   */
  readonly entrypoint = entrypoint;
  private phase: Phase = 'idle';
  private running: Running | null = null;
  private lease: RegisterResponse | null = null;
  private readonly stopping = new AbortController();
  private reregistering = false;
  private stopped: Promise<void> | null = null;

  constructor(private readonly options: AgentRuntimeOptions) {}

  /** `'starting'` until the registry confirmed, `'ok'` while serving, `'draining'` once stopping. */
  get status(): HealthStatus {
    return HEALTH[this.phase];
  }

  /** The current registration, or null before the first confirmation and while re-registering. */
  get registration(): RuntimeRegistration | null {
    if (!this.running || !this.lease) return null;
    return describeRegistration(this.running, this.lease);
  }

  /** The agent's base URL once the server listens. */
  get url(): string | null {
    return this.running ? baseUrl(this.running.endpoint) : null;
  }

  /** The served card (exact bytes, sha256 and ETag) once the server listens. */
  get card(): CardDocument | null {
    return this.running?.card ?? null;
  }

  /**
   * Validates, serves, registers, and resolves once the registry confirmed (201). `target` is the
   * handler function or an object whose class marked a method with `@runtime.entrypoint`; without it,
   * `options.handler` is used. Throws INVALID_CONFIG / INVALID_DECLARATION (naming the field) at once,
   * the registry's error if it refuses the registration, and TIMEOUT after `startTimeout` (registration
   * then goes on in the background). While the registry is unreachable it keeps trying, with backoff.
   */
  async start(target?: InvokeHandler | object): Promise<RuntimeRegistration> {
    if (this.phase !== 'idle')
      throw new ReachError('CONFLICT', `start() called while the runtime is ${this.phase}`);
    const options = compileRuntimeOptions(this.options);
    const declaration = loadDeclaration(options.declarationSource, options.agentName);
    const handler = target === undefined ? options.handler : (handlerOf(target) ?? undefined);
    if (!handler) {
      throw new ReachError(
        'INVALID_CONFIG',
        'no handler: pass options.handler, start(fn), or start(instance) of a class with an @runtime.entrypoint method',
        { data: { key: 'handler' } },
      );
    }
    this.phase = 'starting';
    const running = await assemble(options, declaration, handler, {
      status: () => this.status,
      instanceId: () => this.lease?.instance_id,
      onHeartbeat: (event) => this.onHeartbeat(event),
    }).catch((error: unknown) => {
      this.phase = 'stopped';
      throw error;
    });
    this.running = running;
    if (this.stopping.signal.aborted) {
      // stop() ran while the server was starting: it had nothing to close yet.
      await running.heartbeat.stop();
      await running.listener.close(0);
      this.phase = 'stopped';
      throw new ReachError('UNAVAILABLE', 'the runtime stopped before it started');
    }
    options.logger.info('agent serving; registering', { url: baseUrl(running.endpoint) });
    const registering = this.register(running);
    if (options.startTimeoutMs === undefined) return registering;
    const limit = options.startTimeoutMs;
    return withTimeout(options.clock, registering, limit, () => {
      return new ReachError(
        'TIMEOUT',
        `not registered within ${limit} ms; still trying in the background (stop() gives up)`,
      );
    });
  }

  /** Deregisters, refuses new invokes, waits up to `drainTimeout` for in-flight ones, closes the server. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  /**
   * On SIGTERM or SIGINT: `stop()`, then `process.exit(0)` (1 if stopping failed); a second signal exits at
   * once. Returns a function that removes the handlers.
   */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): () => void {
    return stopOnSignals(
      () => this.stop(),
      () => this.running?.options.logger,
      exit,
    );
  }

  private async register(running: Running): Promise<RuntimeRegistration> {
    const answer = await registerUntilConfirmed(
      this.registrar(running),
      () => registerRequest(running),
      'fail',
      this.stopping.signal,
    );
    if (!answer.ok) {
      await this.stop();
      throw answer.error;
    }
    if (this.phase !== 'starting') {
      // stop() ran while the request was in flight; the registry must not keep a ghost.
      await running.client.deregister(answer.value.instance_id, answer.value.lease_token);
      throw new ReachError('UNAVAILABLE', 'the runtime stopped before registration completed');
    }
    this.adopt(running, answer.value);
    this.phase = 'ready';
    running.options.logger.info('agent ready', { ...describeRegistration(running, answer.value) });
    return describeRegistration(running, answer.value);
  }

  private onHeartbeat(event: HeartbeatEvent): void {
    const running = this.running;
    if (event.type !== 'lease_lost' || !running || this.phase !== 'ready' || this.reregistering) return;
    if (this.lease?.instance_id !== event.instanceId) return;
    this.reregistering = true;
    const previous = this.lease;
    this.lease = null;
    running.heartbeat.pause();
    void registerUntilConfirmed(
      this.registrar(running),
      () => registerRequest(running, previous),
      'retry',
      this.stopping.signal,
    )
      .then(async (answer) => {
        if (!answer.ok) return;
        if (this.phase !== 'ready') {
          await running.client.deregister(answer.value.instance_id, answer.value.lease_token);
          return;
        }
        this.adopt(running, answer.value);
        running.options.logger.info('re-registered', {
          previous: event.instanceId,
          instance_id: answer.value.instance_id,
          same_id: answer.value.instance_id === event.instanceId,
        });
      })
      .finally(() => {
        this.reregistering = false;
      });
  }

  private adopt(running: Running, lease: RegisterResponse): void {
    this.lease = lease;
    running.heartbeat.follow(lease);
  }

  private async shutdown(): Promise<void> {
    const previous = this.phase;
    this.phase = previous === 'idle' ? 'stopped' : 'draining';
    this.stopping.abort();
    const running = this.running;
    if (!running) {
      if (previous === 'starting') this.phase = 'stopped';
      return;
    }
    const { options } = running;
    await running.heartbeat.stop();
    const lease = this.lease;
    this.lease = null;
    if (lease) {
      const gone = await running.client.deregister(lease.instance_id, lease.lease_token);
      if (gone.ok) options.logger.info('deregistered', { instance_id: lease.instance_id });
      else options.logger.warn('deregistration failed; the lease will expire', { error: gone.error.error });
    }
    await running.service.drain(options.drainTimeoutMs);
    await running.listener.close(1000);
    this.phase = 'stopped';
  }

  private registrar(running: Running) {
    const { options, client } = running;
    return {
      client,
      clock: options.clock,
      random: options.random,
      backoff: options.backoff,
      logger: options.logger,
    };
  }
}
