import { connect, createServer, type Server, type Socket } from 'node:net';

/** A backend the balancer forwards to. */
export interface Backend {
  host: string;
  port: number;
}

/**
 * What a Kubernetes Service does for the registry replicas, on one machine: each new connection goes
 * to the next backend in turn, and to the one after it if that refuses (a killed replica), so clients
 * with one URL reach whichever replicas are up. Connections are spliced, never parsed.
 */
export class TcpBalancer {
  private next = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly backends: Backend[],
  ) {}

  /** Listens on `host:port` and forwards to `backends`. */
  static listen(host: string, port: number, backends: Backend[]): Promise<TcpBalancer> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      const balancer = new TcpBalancer(server, backends);
      server.on('connection', (client) => balancer.accept(client));
      server.once('error', reject);
      server.listen(port, host, () => resolve(balancer));
    });
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private accept(client: Socket): void {
    this.track(client);
    client.pause();
    const first = this.next++ % this.backends.length;
    const attempt = (tried: number): void => {
      if (client.destroyed) return;
      if (tried === this.backends.length) {
        client.destroy();
        return;
      }
      const backend = this.backends[(first + tried) % this.backends.length]!;
      const upstream = connect(backend.port, backend.host);
      this.track(upstream);
      let connected = false;
      upstream.once('connect', () => {
        connected = true;
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.once('error', () => {
        if (!connected) attempt(tried + 1);
        else client.destroy();
      });
      upstream.once('close', () => {
        if (connected) client.destroy();
      });
      client.once('close', () => upstream.destroy());
      client.once('error', () => upstream.destroy());
    };
    attempt(0);
  }
}
