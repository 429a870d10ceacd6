import { createParser } from 'eventsource-parser';

/** One server-sent event as a client sees it. */
export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

/**
 * Reads SSE messages from a response body as they arrive (eventsource-parser: CRLF or LF line ends,
 * comments skipped); stopping the iteration cancels the body.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (e) => ready.push({ event: e.event ?? 'message', id: e.id ?? null, data: e.data }),
  });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (ready.length > 0) yield ready.shift()!;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
