/** One server-sent event as a client sees it. */
export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

/**
 * Reads SSE messages from a response body until `stop` says so or the stream ends (comments are
 * skipped); used by tests and the CLI to follow a run.
 */
export async function readSse(
  body: ReadableStream<Uint8Array>,
  stop: (message: SseMessage, all: SseMessage[]) => boolean = (m) => m.event === 'done',
): Promise<SseMessage[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const out: SseMessage[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      buffer += decoder.decode(value, { stream: true });
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        const message: SseMessage = { event: 'message', id: null, data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':') || line === '') continue;
          const at = line.indexOf(':');
          const field = at < 0 ? line : line.slice(0, at);
          const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
          if (field === 'event') message.event = value;
          else if (field === 'id') message.id = value;
          else if (field === 'data') data.push(value);
        }
        if (data.length === 0 && message.id === null && message.event === 'message') continue;
        message.data = data.join('\n');
        out.push(message);
        if (stop(message, out)) return out;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
