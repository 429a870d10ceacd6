import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OpenAI-compatible `/v1/chat/completions` on 127.0.0.1 that answers with a plan chosen from the task. */
export class FakeModelServer {
  private server: Server | null = null;
  /** The tasks the planner sent, in order. */
  readonly tasks: string[] = [];
  baseUrl = '';

  constructor(private readonly planFor: (task: string) => unknown) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404).end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          model: string;
          messages: Array<{ role: string; content: string }>;
        };
        const task = body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
        this.tasks.push(task);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `chatcmpl-${this.tasks.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: JSON.stringify(this.planFor(task)) },
                finish_reason: 'stop',
              },
            ],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
