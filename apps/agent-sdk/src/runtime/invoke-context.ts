/** What a handler receives for one call (an A2A message: one task, one execution). */
export interface InvokeContext {
  /** The caller's request_id (also the idempotency key). */
  readonly requestId: string;
  /** The operation being invoked (one of the declaration's capabilities). */
  readonly capability: string;
  /** The request's `input`, unvalidated: check it against what the operation needs. */
  readonly input: unknown;
  /** Context the caller prepared (e.g. compacted upstream outputs), or undefined. */
  readonly context: unknown;
  /** Who called, when the caller said so. */
  readonly caller: string | undefined;
  /** Fires when every caller waiting for this request has disconnected, the deadline passes, or the agent stops. */
  readonly signal: AbortSignal;
  /** The deadline on the runtime clock's monotonic scale (compare with `timeRemaining()`, not `Date.now()`). */
  readonly deadline: number;
  /** Milliseconds left before the deadline (never negative). */
  timeRemaining(): number;
  /** Sends a `progress` line to every caller waiting for this request. */
  progress(message: string, fraction?: number): void;
  /** The W3C `traceparent` header of the call, for joining the caller's trace. */
  readonly traceparent: string | undefined;
}

/** An agent's entrypoint: returns (or resolves to) the JSON-serialisable `output` of the result line. */
export type InvokeHandler = (ctx: InvokeContext) => Promise<unknown> | unknown;

/** What an {@link InvokeHook} learns about a call before the handler runs. */
export interface InvokeInfo {
  readonly requestId: string;
  readonly capability: string;
  readonly traceparent: string | undefined;
  readonly caller: string | undefined;
}

/**
 * Wraps every handler run, e.g. to open an OpenTelemetry server span from `traceparent`; it must call
 * `run` once and return (or rethrow) its outcome.
 */
export type InvokeHook = <T>(info: InvokeInfo, run: () => Promise<T>) => Promise<T>;
