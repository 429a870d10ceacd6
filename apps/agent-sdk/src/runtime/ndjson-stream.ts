import type { AckLine } from '../protocol/index.js';
import type { InvokeExecution } from './invoke-execution.js';

const encoder = new TextEncoder();
const encodeLine = (line: unknown) => encoder.encode(`${JSON.stringify(line)}\n`);

/** Headers of an invoke stream; no proxy buffering, so the ack reaches the caller at once. */
export const NDJSON_HEADERS = {
  'content-type': 'application/x-ndjson; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
} as const;

/**
 * The NDJSON body of one invoke: the ack first, then progress lines, then the final line. Cancelling the
 * stream (the caller went away) or `callerGone` detaches this caller from the execution.
 */
export function invokeStream(
  execution: InvokeExecution,
  ack: AckLine,
  callerGone: AbortSignal | undefined,
): ReadableStream<Uint8Array> {
  let detach: () => void = () => {};
  let open = true;
  const close = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    if (!open) return;
    open = false;
    detach();
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encodeLine(ack));
      detach = execution.attach((event) => {
        if (open) controller.enqueue(encodeLine(event));
      });
      callerGone?.addEventListener('abort', () => {
        open = false;
        detach();
      });
      void execution.outcome.then((line) => {
        if (!open) return;
        controller.enqueue(encodeLine(line));
        close(controller);
      });
    },
    cancel() {
      open = false;
      detach();
    },
  });
}
