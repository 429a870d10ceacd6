import { readSse, type SseMessage } from '../http/sse-reader.js';

/** Reads SSE messages until `stop` says so (by default after `done`) or the stream ends. */
export async function collectSse(
  body: ReadableStream<Uint8Array>,
  stop: (message: SseMessage, all: SseMessage[]) => boolean = (m) => m.event === 'done',
): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const message of readSse(body)) {
    out.push(message);
    if (stop(message, out)) break;
  }
  return out;
}
