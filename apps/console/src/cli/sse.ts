/** One server-sent event. */
export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

/** Parses one SSE block (the lines between blank lines); null for comments and empty blocks. */
function parseBlock(block: string): SseMessage | null {
  const message: SseMessage = { event: 'message', id: null, data: '' };
  const data: string[] = [];
  let fields = 0;
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const at = line.indexOf(':');
    const field = at < 0 ? line : line.slice(0, at);
    const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
    if (field === 'event') message.event = value;
    else if (field === 'id') message.id = value;
    else if (field === 'data') data.push(value);
    else continue;
    fields += 1;
  }
  if (fields === 0) return null;
  message.data = data.join('\n');
  return message;
}

/** Reads SSE messages from a response body as they arrive (CRLF or LF line ends, comments skipped). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const message = parseBlock(buffer.slice(0, cut));
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
        if (message !== null) yield message;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
