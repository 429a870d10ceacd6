import { type Clock, startTimer } from '../clock/index.js';
import { type Declaration, err, type InvokeRequest, ok, ReachError, type Result } from '../protocol/index.js';
import type { InvokeHandler, InvokeHook } from './invoke-context.js';
import { InvokeExecution, isRetryableCode } from './invoke-execution.js';
import type { LoadGauge } from './load-gauge.js';
import type { Logger } from './logger.js';
import { type LedgerLimits, RequestLedger } from './request-ledger.js';

/** What the invoke service is built from. */
export interface InvokeServiceDeps {
  declaration: Declaration;
  handler: InvokeHandler;
  gauge: LoadGauge;
  clock: Clock;
  logger: Logger;
  ledger: LedgerLimits;
  /** Execution deadline when the caller gives none. */
  defaultTimeoutMs: number;
  hook: InvokeHook | undefined;
}

/** A request the service accepted: a new execution to start, or one already known for that request_id. */
export interface Admission {
  execution: InvokeExecution;
  /** True when the request_id was seen before and this call shares the first answer. */
  replay: boolean;
}

/** Admits invokes: request_id dedup, capacity, draining, and which operation a call means. */
export class InvokeService {
  private readonly ledger: RequestLedger<InvokeExecution>;
  private readonly running = new Set<InvokeExecution>();
  private idle: (() => void) | null = null;
  private draining = false;

  constructor(private readonly deps: InvokeServiceDeps) {
    this.ledger = new RequestLedger(deps.ledger, deps.clock);
  }

  /** Executions whose handler has not settled. */
  get inFlight(): number {
    return this.running.size;
  }

  /** Admits a validated request, or says why not (OVERLOADED, UNAVAILABLE, UNKNOWN_CAPABILITY, BAD_REQUEST). */
  admit(request: InvokeRequest, traceparent: string | undefined): Result<Admission> {
    const known = this.ledger.get(request.request_id);
    if (known) return ok({ execution: known, replay: true });
    if (this.draining)
      return err(new ReachError('UNAVAILABLE', 'the agent is shutting down; try another instance'));
    const capability = this.operationFor(request.capability);
    if (!capability.ok) return capability;
    if (!this.deps.gauge.tryAcquire()) {
      return err(
        new ReachError('OVERLOADED', `at capacity (${this.deps.gauge.capacity} requests in flight)`, {
          data: { capacity: this.deps.gauge.capacity },
        }),
      );
    }
    const execution: InvokeExecution = new InvokeExecution({
      requestId: request.request_id,
      capability: capability.value,
      input: request.input,
      context: request.context,
      caller: request.caller,
      traceparent,
      timeoutMs: request.deadline_ms ?? this.deps.defaultTimeoutMs,
      handler: this.deps.handler,
      hook: this.deps.hook,
      clock: this.deps.clock,
      logger: this.deps.logger,
      onHandlerSettled: () => this.release(execution),
    });
    this.running.add(execution);
    this.ledger.add(request.request_id, execution);
    void execution.outcome.then((line) => {
      // A retryable answer is not "the" answer: a retry with the same id should run again.
      if (line.type === 'error' && isRetryableCode(line.code))
        this.ledger.forget(request.request_id, execution);
      else this.ledger.finish(request.request_id, execution);
    });
    return ok({ execution, replay: false });
  }

  /** Refuses new requests from now on and waits up to `timeoutMs` for in-flight ones, then aborts the rest. */
  async drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.running.size > 0) {
      await new Promise<void>((resolve) => {
        const cancel = startTimer(this.deps.clock, resolve, timeoutMs);
        this.idle = () => {
          cancel();
          resolve();
        };
      });
    }
    for (const execution of this.running) {
      execution.abort(new DOMException('the agent is shutting down', 'AbortError'), 'UNAVAILABLE');
    }
  }

  private release(execution: InvokeExecution): void {
    if (!this.running.delete(execution)) return;
    this.deps.gauge.release();
    if (this.running.size === 0) this.idle?.();
  }

  private operationFor(requested: string | undefined): Result<string> {
    const operations = this.deps.declaration.capabilities;
    const names = Object.keys(operations);
    // An A2A caller that does not know our extension names no operation: the first skill of the card serves it.
    if (requested === undefined) return ok(names[0]!);
    if (Object.hasOwn(operations, requested)) return ok(requested);
    // A caller may name a catalog capability (e.g. `writing`) that one of the operations serves.
    const serving = names.find((name) => operations[name]!.serves.includes(requested));
    if (serving) return ok(serving);
    return err(
      new ReachError(
        'UNKNOWN_CAPABILITY',
        `this agent does not offer ${JSON.stringify(requested)}; it offers ${names.join(', ')}`,
      ),
    );
  }
}
