import { readSse } from '@agent-reach/sdk/http';
import { isReachError, ReachError } from '@agent-reach/sdk/protocol';
import type { ApiClient } from './api-client.js';
import type { TraceEventView } from './orchestrator-views.js';

/** How following a run goes. */
export interface WatchOptions {
  /** Resume after this seq (`Last-Event-ID`). @default 0 */
  after?: number;
  /** Reconnects allowed after the stream drops without `done`. @default 5 */
  reconnects?: number;
  /** Waits before a reconnect. @default 1000 */
  reconnectDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * Follows `GET /api/stream/{id}`, calling `onEvent` for each event in seq order; reconnects with
 * `Last-Event-ID` when the stream drops, so no event is lost or repeated. Resolves with the run's status.
 */
export async function watchTrace(
  api: Pick<ApiClient, 'stream'>,
  traceId: string,
  onEvent: (event: TraceEventView) => void,
  options: WatchOptions = {},
): Promise<string> {
  let last = options.after ?? 0;
  let reconnects = options.reconnects ?? 5;
  for (;;) {
    let res: Response | null = null;
    try {
      res = await api.stream(traceId, last, options.signal);
    } catch (error) {
      // The orchestrator restarting is a dropped stream; any other answer (NOT_FOUND, …) is final.
      if (!isReachError(error) || error.code !== 'UNAVAILABLE' || reconnects <= 0) throw error;
    }
    let progressed = false;
    for await (const message of res?.body ? readSse(res.body) : []) {
      if (message.event === 'done') return (JSON.parse(message.data) as { status: string }).status;
      if (message.event === 'stream_timeout')
        throw new ReachError('TIMEOUT', `no event for trace ${traceId} within the server's idle limit`);
      if (message.event !== 'message') continue;
      const event = JSON.parse(message.data) as TraceEventView;
      // A replay after a reconnect never repeats what was already shown.
      if (event.seq <= last) continue;
      last = event.seq;
      progressed = true;
      onEvent(event);
    }
    if (progressed) reconnects = options.reconnects ?? 5;
    if (reconnects <= 0 || options.signal?.aborted)
      throw new ReachError('UNAVAILABLE', `the event stream of trace ${traceId} ended before the run did`);
    reconnects -= 1;
    await new Promise((resolve) => setTimeout(resolve, options.reconnectDelayMs ?? 1000));
  }
}
