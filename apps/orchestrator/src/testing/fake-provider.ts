import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fake provider answers to one request. */
export type FakeReply =
  | { status: number; body?: unknown }
  | { content: string; finish_reason?: 'stop' | 'length'; reasoning_content?: string; delayMs?: number };

/** One request the fake provider saw. */
export interface FakeRequest {
  body: { model?: string; max_tokens?: number; messages?: Array<{ role: string; content: string }> };
  authorization: string | undefined;
}

/**
 * A local OpenAI-compatible chat completions server for tests, bound to 127.0.0.1 on a free port;
 * `reply` decides each answer, and the server counts how many requests are in flight at once.
 */
export class FakeProvider {
  readonly requests: FakeRequest[] = [];
  peakConcurrent = 0;
  #inFlight = 0;
  #server: Server;

  private constructor(reply: (req: FakeRequest, index: number) => FakeReply) {
    this.#server = createServer(async (req, res) => {
      this.#inFlight += 1;
      this.peakConcurrent = Math.max(this.peakConcurrent, this.#inFlight);
      const done = () => {
        this.#inFlight -= 1;
      };
      res.on('close', done);
      const seen: FakeRequest = {
        body: JSON.parse(await readBody(req)),
        authorization: req.headers.authorization,
      };
      const index = this.requests.push(seen) - 1;
      if (req.url !== '/v1/chat/completions') {
        res.writeHead(404).end();
        return;
      }
      const r = reply(seen, index);
      if ('status' in r) {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r.body ?? { error: { message: `fake ${r.status}` } }));
        return;
      }
      if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(seen.body.model ?? 'fake', r)));
    });
  }

  /** Starts a fake provider on 127.0.0.1 with a free port. */
  static async start(reply: (req: FakeRequest, index: number) => FakeReply): Promise<FakeProvider> {
    const fake = new FakeProvider(reply);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The base URL to put in a provider's config. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v1`;
  }

  /** Stops the server and drops open connections. */
  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

function completion(model: string, r: Extract<FakeReply, { content: string }>) {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: r.content, reasoning_content: r.reasoning_content },
        finish_reason: r.finish_reason ?? 'stop',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8') || '{}';
}
