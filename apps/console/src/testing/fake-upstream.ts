import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the fake upstream saw. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A node:http server for proxy tests: records requests and answers through `handle`. */
export class FakeUpstream {
  readonly seen: SeenRequest[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts on 127.0.0.1 and a free port. */
  static async start(
    handle: (req: SeenRequest, res: ServerResponse) => void | Promise<void>,
  ): Promise<FakeUpstream> {
    let upstream: FakeUpstream | undefined;
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      upstream?.seen.push(seen);
      await handle(seen, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    upstream = new FakeUpstream(server, `http://127.0.0.1:${port}`);
    return upstream;
  }

  /** Closes the server and every open connection. */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
