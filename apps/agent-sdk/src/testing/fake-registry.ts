import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeartbeatRequest, RegisterRequest } from '../protocol/index.js';

/** One call the fake registry received, with its arrival time (performance.now()). */
export interface Received<T> {
  at: number;
  instanceId: string;
  auth: string | undefined;
  body: T;
}

interface Instance {
  token: string;
  lastSeq: number;
}

/**
 * A small registry stand-in on node:http speaking the agent API (register, heartbeat, deregister) with
 * the real status codes: 201, 200, 409 STALE_HEARTBEAT, 410 UNKNOWN_INSTANCE, 401, 204.
 */
export class FakeRegistry {
  readonly registrations: Received<RegisterRequest>[] = [];
  readonly heartbeats: Received<HeartbeatRequest>[] = [];
  readonly deletes: Received<null>[] = [];
  readonly instances = new Map<string, Instance>();
  /** Bearer token required for registration, if set. */
  registryToken: string | undefined;
  heartbeatIntervalMs = 5000;
  /** Answer this many registrations with 503 UNAVAILABLE first (they are still recorded in `attempts`). */
  failRegistrations = 0;
  /** Arrival times of every registration attempt, failed ones included. */
  readonly attempts: number[] = [];
  private server: Server | null = null;
  private waiters: (() => void)[] = [];

  /** Listens on 127.0.0.1 (port 0 = free) and returns the base URL. */
  async start(port = 0): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.server = server;
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  /** Forgets an instance, as a registry does after its lease expired. */
  forget(instanceId: string): void {
    this.instances.delete(instanceId);
  }

  /** Resolves once `predicate` holds (checked after every request), or rejects after `timeoutMs`. */
  async waitFor(predicate: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`fake registry: timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 50));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const auth = req.headers.authorization;
    const send = (status: number, body?: unknown) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
      res.end(body === undefined ? undefined : JSON.stringify(body));
      for (const wake of this.waiters.splice(0)) wake();
    };
    const fail = (status: number, code: string, message: string) => send(status, { code, message });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const match = /^\/v1\/agents\/([^/]+)(\/heartbeat)?$/.exec(path);

    if (req.method === 'POST' && path === '/v1/agents') {
      this.attempts.push(at);
      if (this.failRegistrations > 0) {
        this.failRegistrations -= 1;
        return fail(503, 'STORE_UNAVAILABLE', 'store unavailable');
      }
      if (this.registryToken && auth !== `Bearer ${this.registryToken}`)
        return fail(401, 'UNAUTHORIZED', 'bad token');
      const parsed = RegisterRequest.safeParse(JSON.parse(text));
      if (!parsed.success) return fail(400, 'VALIDATION_FAILED', parsed.error.message);
      const instanceId = `${parsed.data.declaration.agent_name}-${randomUUID().slice(0, 8)}`;
      const token = randomUUID();
      this.instances.set(instanceId, { token, lastSeq: 0 });
      this.registrations.push({ at, instanceId, auth, body: parsed.data });
      return send(201, {
        instance_id: instanceId,
        lease_token: token,
        heartbeat_interval_ms: this.heartbeatIntervalMs,
        heartbeat_timeout_ms: this.heartbeatIntervalMs * 3,
        declaration_version: parsed.data.declaration.version,
      });
    }
    if (!match) return fail(404, 'NOT_FOUND', path);
    const instanceId = decodeURIComponent(match[1]!);
    const instance = this.instances.get(instanceId);
    if (req.method === 'POST' && match[2]) {
      const body = HeartbeatRequest.parse(JSON.parse(text));
      this.heartbeats.push({ at, instanceId, auth, body });
      if (!instance) return fail(410, 'UNKNOWN_INSTANCE', 'unknown instance; re-register');
      if (auth !== `Bearer ${instance.token}`) return fail(401, 'LEASE_TOKEN_INVALID', 'bad lease token');
      if (body.seq <= instance.lastSeq) return fail(409, 'STALE_HEARTBEAT', `seq ${body.seq} is not newer`);
      instance.lastSeq = body.seq;
      return send(200, { status: 'ok', state: 'healthy', heartbeat_interval_ms: this.heartbeatIntervalMs });
    }
    if (req.method === 'DELETE') {
      this.deletes.push({ at, instanceId, auth, body: null });
      if (!instance) return fail(410, 'UNKNOWN_INSTANCE', 'unknown instance');
      if (auth !== `Bearer ${instance.token}`) return fail(401, 'LEASE_TOKEN_INVALID', 'bad lease token');
      this.instances.delete(instanceId);
      return send(204);
    }
    return fail(404, 'NOT_FOUND', path);
  }
}

/** A loopback port that was free a moment ago (for a registry that starts later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
