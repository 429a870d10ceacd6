import { type CancelTimer, type Clock, startTimer } from '../clock/index.js';
import { type ErrorCode, type ErrorLine, isReachError, type ResultLine } from '../protocol/index.js';
import type { InvokeContext, InvokeHandler, InvokeHook } from './invoke-context.js';
import type { Logger } from './logger.js';

/** The line that ends an invoke stream. */
export type FinalLine = ResultLine | ErrorLine;
/** A progress line as sent on the wire. */
export type ProgressEvent = { type: 'progress'; request_id: string; message?: string; fraction?: number };

/** Codes after which trying again may succeed; their answers are not replayed to a retry. */
const RETRYABLE: ReadonlySet<string> = new Set<ErrorCode>([
  'TIMEOUT',
  'OVERLOADED',
  'UNAVAILABLE',
  'STORE_UNAVAILABLE',
]);

/** Whether an error line's code invites a retry. */
export function isRetryableCode(code: string): boolean {
  return RETRYABLE.has(code);
}

/** Everything one execution needs; built by the invoke service. */
export interface ExecutionSpec {
  requestId: string;
  capability: string;
  input: unknown;
  context: unknown;
  caller: string | undefined;
  traceparent: string | undefined;
  timeoutMs: number;
  handler: InvokeHandler;
  hook: InvokeHook | undefined;
  clock: Clock;
  logger: Logger;
  /** Called once when the handler itself settles (it may outlive the answer, e.g. after a deadline). */
  onHandlerSettled: () => void;
}

/**
 * One run of the handler for one request_id, shared by every caller that sends that id: they all get
 * its progress lines and its single final line.
 */
export class InvokeExecution {
  /** Resolves with the final line; never rejects. */
  readonly outcome: Promise<FinalLine>;
  private resolveOutcome!: (line: FinalLine) => void;
  private final: FinalLine | null = null;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<(event: ProgressEvent) => void>();
  private readonly startedAt: number;
  private readonly deadline: number;
  private cancelDeadline: CancelTimer | null = null;

  constructor(private readonly spec: ExecutionSpec) {
    this.outcome = new Promise((resolve) => {
      this.resolveOutcome = resolve;
    });
    this.startedAt = spec.clock.now();
    this.deadline = this.startedAt + spec.timeoutMs;
  }

  /** The final line once there is one. */
  get settled(): FinalLine | null {
    return this.final;
  }

  /** Follows the execution's progress; the returned function stops following, and the last one to stop cancels it. */
  attach(onProgress: (event: ProgressEvent) => void): () => void {
    this.listeners.add(onProgress);
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.listeners.delete(onProgress);
      if (this.listeners.size === 0 && this.final === null) {
        this.abort(new DOMException('every caller disconnected', 'AbortError'), 'UNAVAILABLE');
      }
    };
  }

  /** Aborts the handler and ends the execution with an error line (no-op once it has ended). */
  abort(reason: DOMException, code: ErrorCode): void {
    if (this.final !== null) return;
    this.settle(this.errorLine(code, reason.message));
    this.controller.abort(reason);
  }

  /** Runs the handler; call once, after the ack has been queued. */
  start(): void {
    const { spec } = this;
    // Every caller left before the handler began: nothing to run, but the slot must be given back.
    if (this.final !== null) {
      spec.onHandlerSettled();
      return;
    }
    this.cancelDeadline = startTimer(
      spec.clock,
      () =>
        this.abort(new DOMException(`deadline of ${spec.timeoutMs} ms passed`, 'TimeoutError'), 'TIMEOUT'),
      spec.timeoutMs,
    );
    const ctx = this.context();
    const run = async () => spec.handler(ctx);
    const info = {
      requestId: spec.requestId,
      capability: spec.capability,
      traceparent: spec.traceparent,
      caller: spec.caller,
    };
    const running = spec.hook ? spec.hook(info, run) : run();
    running
      .then(
        (output) => this.settle(this.resultLine(output)),
        (error: unknown) => this.settle(this.failureLine(error)),
      )
      .finally(() => spec.onHandlerSettled());
  }

  private context(): InvokeContext {
    const { spec } = this;
    const { clock } = spec;
    return {
      requestId: spec.requestId,
      capability: spec.capability,
      input: spec.input,
      context: spec.context,
      caller: spec.caller,
      signal: this.controller.signal,
      deadline: this.deadline,
      timeRemaining: () => Math.max(0, this.deadline - clock.now()),
      progress: (message, fraction) => this.progress(message, fraction),
      traceparent: spec.traceparent,
    };
  }

  private progress(message: string, fraction?: number): void {
    if (this.final !== null) return;
    const event: ProgressEvent = {
      type: 'progress',
      request_id: this.spec.requestId,
      message: String(message),
    };
    if (typeof fraction === 'number' && Number.isFinite(fraction))
      event.fraction = Math.min(1, Math.max(0, fraction));
    for (const listener of this.listeners) listener(event);
  }

  private settle(line: FinalLine): void {
    if (this.final !== null) return;
    this.final = line;
    this.cancelDeadline?.();
    this.resolveOutcome(line);
  }

  private resultLine(output: unknown): FinalLine {
    const line: ResultLine = {
      type: 'result',
      request_id: this.spec.requestId,
      output: output === undefined ? null : output,
      duration_ms: Math.round(this.spec.clock.now() - this.startedAt),
    };
    try {
      JSON.stringify(line);
      return line;
    } catch (cause) {
      this.spec.logger.error('handler output is not JSON-serialisable', {
        request_id: this.spec.requestId,
        error: cause,
      });
      return this.errorLine('INTERNAL', 'the handler returned an output that cannot be serialised as JSON');
    }
  }

  private failureLine(error: unknown): FinalLine {
    if (isReachError(error)) return this.errorLine(error.code, error.message);
    // Unknown failures are logged with their cause but not sent: they may carry internals.
    this.spec.logger.error('handler failed', { request_id: this.spec.requestId, error });
    return this.errorLine('INTERNAL', 'the handler failed; see the agent log');
  }

  private errorLine(code: string, message: string): ErrorLine {
    return {
      type: 'error',
      request_id: this.spec.requestId,
      code,
      message,
      retryable: isRetryableCode(code),
    };
  }
}
