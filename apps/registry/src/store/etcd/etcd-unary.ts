import http2 from 'node:http2';
import protobuf from 'protobufjs';

/**
 * The messages of the two calls below, copied from etcd's `rpc.proto` (field numbers and names); the
 * fields the registry never sets or reads are left out, and decoding skips them.
 */
const { root } = protobuf.parse(
  `syntax = "proto3";
  package etcdserverpb;
  message PutRequest { bytes key = 1; bytes value = 2; int64 lease = 3; }
  message DeleteRangeRequest { bytes key = 1; bytes range_end = 2; }
  message RequestOp {
    oneof request { PutRequest request_put = 2; DeleteRangeRequest request_delete_range = 3; }
  }
  message TxnRequest { repeated RequestOp success = 2; }
  message LeaseGrantRequest { int64 TTL = 1; int64 ID = 2; }
  message LeaseGrantResponse { int64 ID = 2; int64 TTL = 3; string error = 4; }
  message AuthenticateRequest { string name = 1; string password = 2; }
  message AuthenticateResponse { string token = 2; }`,
  { keepCase: true },
);
const TxnRequest = root.lookupType('etcdserverpb.TxnRequest');
const LeaseGrantRequest = root.lookupType('etcdserverpb.LeaseGrantRequest');
const LeaseGrantResponse = root.lookupType('etcdserverpb.LeaseGrantResponse');
const AuthenticateRequest = root.lookupType('etcdserverpb.AuthenticateRequest');
const AuthenticateResponse = root.lookupType('etcdserverpb.AuthenticateResponse');

/** How to reach a secured etcd: client TLS (PEM contents) and a user whose token goes with every call. */
export interface EtcdSecurity {
  tls?: { ca: Buffer; cert?: Buffer; key?: Buffer };
  auth?: { username: string; password: string };
}

/** One operation of a transaction: a put (bound to a lease or not) or the delete of one key. */
export type TxnOp =
  | { request_put: { key: Buffer; value: Buffer; lease?: string } }
  | { request_delete_range: { key: Buffer } };

/** gRPC status codes the registry tells apart (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
export const GRPC_STATUS = {
  OK: 0,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A unary call that did not end in status OK; the message carries etcd's own words. */
export class EtcdCallError extends Error {
  readonly code: number;
  constructor(code: number, details: string) {
    super(`${details} (gRPC status ${code})`);
    this.name = 'EtcdCallError';
    this.code = code;
  }
}

/** One message in gRPC's length-prefixed framing: no compression, 4-byte big-endian length. */
export function grpcFrame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** The single message of a unary answer (an empty body is an empty message). */
function unframe(body: Buffer): Buffer {
  if (body.length === 0) return body;
  if (body.length < 5 || body[0] !== 0)
    throw new EtcdCallError(GRPC_STATUS.UNAVAILABLE, 'malformed gRPC answer');
  return body.subarray(5, 5 + body.readUInt32BE(1));
}

/** gRPC percent-encodes `grpc-message`. */
function statusMessage(value: unknown): string {
  if (typeof value !== 'string') return '';
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** What one call has received so far. */
interface CallState {
  chunks: Buffer[];
  status: number | undefined;
  details: string;
  failure: Error | undefined;
  /** The connection failed before etcd answered anything (a member that is down): another may answer. */
  unreached: boolean;
}

/** Takes `grpc-status` from the headers (a trailers-only answer) or from the trailers. */
function readStatus(call: CallState, headers: http2.IncomingHttpHeaders): void {
  const value = headers['grpc-status'];
  if (value === undefined) return;
  call.status = Number(value);
  call.details = statusMessage(headers['grpc-message']);
}

/** Ends a call once its stream has closed: its message on status OK, else an EtcdCallError. */
function settle(call: CallState, resolve: (message: Buffer) => void, reject: (error: Error) => void): void {
  if (call.failure !== undefined) reject(call.failure);
  else if (call.status === undefined)
    reject(new EtcdCallError(GRPC_STATUS.UNAVAILABLE, 'etcd closed the call without a status'));
  else if (call.status !== GRPC_STATUS.OK) reject(new EtcdCallError(call.status, call.details));
  else {
    try {
      resolve(unframe(call.chunks.length === 1 ? call.chunks[0]! : Buffer.concat(call.chunks)));
    } catch (error) {
      reject(error as Error);
    }
  }
}

/**
 * etcd's LeaseGrant and Txn, called straight over HTTP/2 with gRPC's framing: the two calls every
 * registration makes. Through the etcd3 client each costs this process 200–370 µs of CPU (its
 * connection pool and retry policies, then grpc-js's call stack); here it costs about 100 µs, and
 * that CPU decides how fast registrations go on a small machine (docs/registry.md, "Hot paths").
 * Keep-alives run on one long-lived stream of the same session (`openStream`, keepalive-stream.ts);
 * watches, ranges and elections stay with the etcd3 client.
 *
 * One HTTP/2 session at a time, to the first endpoint that answers; when it fails, the server sends
 * GOAWAY, or it stops answering even pings after a call timed out, the next call connects again, to the
 * next endpoint.
 */
export class EtcdUnaryClient {
  readonly #endpoints: string[];
  readonly #timeoutMs: number;
  #next = 0;
  #session: http2.ClientHttp2Session | undefined;
  /** The session a ping is out on: calls that time out together send one ping, not one each. */
  #probing: http2.ClientHttp2Session | undefined;
  #closed = false;
  readonly #security: EtcdSecurity;
  /** The auth token of `security.auth`, fetched on first use and again when etcd says it expired. */
  #token: Promise<string> | undefined;

  constructor(endpoints: string[], timeoutMs: number, security: EtcdSecurity = {}) {
    if (endpoints.length === 0) throw new Error('EtcdUnaryClient needs at least one endpoint');
    this.#endpoints = endpoints;
    this.#timeoutMs = timeoutMs;
    this.#security = security;
  }

  /** Grants a lease of `ttlSeconds`; resolves with its id as a decimal string. */
  async grantLease(ttlSeconds: number): Promise<string> {
    const request = LeaseGrantRequest.encode({ TTL: ttlSeconds }).finish();
    const answer = LeaseGrantResponse.decode(
      await this.#authorized('/etcdserverpb.Lease/LeaseGrant', request),
    );
    const { ID, error } = LeaseGrantResponse.toObject(answer, { longs: String }) as {
      ID?: string;
      error?: string;
    };
    if (error) throw new EtcdCallError(GRPC_STATUS.UNAVAILABLE, `etcdserver: ${error}`);
    if (ID === undefined || ID === '0')
      throw new EtcdCallError(GRPC_STATUS.UNAVAILABLE, 'etcd granted no lease id');
    return ID;
  }

  /** Applies `ops` in one transaction with no conditions (all of them or, on an error, none). */
  async txn(ops: readonly TxnOp[]): Promise<void> {
    await this.#authorized('/etcdserverpb.KV/Txn', TxnRequest.encode({ success: ops }).finish());
  }

  /** A call with the auth token when a user is configured; an expired token is renewed once. */
  #authorized(path: string, message: Uint8Array): Promise<Buffer> {
    const auth = this.#security.auth;
    // Not async: without auth this stays one promise per call (a registration's hot path).
    return auth === undefined ? this.#call(path, message) : this.#withToken(auth, path, message);
  }

  async #withToken(
    auth: { username: string; password: string },
    path: string,
    message: Uint8Array,
  ): Promise<Buffer> {
    for (let attempt = 0; ; attempt++) {
      const pending = this.#token ?? this.#authenticate(auth);
      this.#token = pending;
      const token = await pending.catch((error: unknown) => {
        if (this.#token === pending) this.#token = undefined;
        throw error;
      });
      try {
        return await this.#call(path, message, token);
      } catch (error) {
        const expired = error instanceof EtcdCallError && error.code === GRPC_STATUS.UNAUTHENTICATED;
        if (!expired || attempt > 0) throw error;
        if (this.#token === pending) this.#token = undefined;
      }
    }
  }

  async #authenticate(auth: { username: string; password: string }): Promise<string> {
    const request = AuthenticateRequest.encode({ name: auth.username, password: auth.password }).finish();
    const answer = AuthenticateResponse.decode(await this.#call('/etcdserverpb.Auth/Authenticate', request));
    const { token } = AuthenticateResponse.toObject(answer) as { token?: string };
    if (!token) throw new EtcdCallError(GRPC_STATUS.UNAUTHENTICATED, 'etcd returned no auth token');
    return token;
  }

  /**
   * Opens a long-lived bidirectional call on the current session (no deadline; with the auth token
   * when a user is configured). The caller writes framed messages (`grpcFrame`) and reads the answer
   * frames; `probe` drops the session when it no longer answers pings (after the caller saw a stall).
   */
  async openStream(path: string): Promise<{ stream: http2.ClientHttp2Stream; probe: () => void }> {
    if (this.#closed) throw new EtcdCallError(GRPC_STATUS.UNAVAILABLE, 'the etcd client is closed');
    const auth = this.#security.auth;
    let token: string | undefined;
    if (auth !== undefined) {
      const pending = this.#token ?? this.#authenticate(auth);
      this.#token = pending;
      token = await pending.catch((error: unknown) => {
        if (this.#token === pending) this.#token = undefined;
        throw error;
      });
    }
    const session = this.#connect();
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
    };
    if (token !== undefined) headers.token = token;
    return { stream: session.request(headers), probe: () => this.#probe(session) };
  }

  /** Forgets the auth token (etcd said it expired): the next call or stream authenticates again. */
  forgetToken(): void {
    this.#token = undefined;
  }

  /** Ends the session; calls in flight fail, later ones are refused. */
  close(): void {
    this.#closed = true;
    this.#session?.destroy();
    this.#session = undefined;
  }

  #connect(): http2.ClientHttp2Session {
    const current = this.#session;
    if (current !== undefined && !current.destroyed && !current.closed) return current;
    // Destroyed or closing, but its 'close' event has not come yet: retire it now.
    if (current !== undefined) this.#retire(current);
    const endpoint = this.#endpoints[this.#next % this.#endpoints.length]!;
    const tls = this.#security.tls;
    const session =
      tls === undefined
        ? http2.connect(endpoint)
        : http2.connect(endpoint, {
            ca: tls.ca,
            ...(tls.cert === undefined ? {} : { cert: tls.cert }),
            ...(tls.key === undefined ? {} : { key: tls.key }),
          });
    // Errors reach the calls on the session as stream errors; here they only retire it.
    session.on('error', () => this.#retire(session));
    session.on('goaway', () => this.#retire(session));
    session.on('close', () => this.#retire(session));
    this.#session = session;
    return session;
  }

  /** Stops using `session` (once): the next call connects again, to the next endpoint. */
  #retire(session: http2.ClientHttp2Session): void {
    if (this.#session !== session) return;
    this.#session = undefined;
    this.#next++;
  }

  /**
   * After a call timed out: a session that does not even answer a ping in time is dead (a half-open
   * connection: the server's host vanished without closing it). Dropping it makes the next call connect
   * again, to the next endpoint, instead of timing out on it forever.
   */
  #probe(session: http2.ClientHttp2Session): void {
    if (session.destroyed || this.#session !== session || this.#probing === session) return;
    this.#probing = session;
    const timer = setTimeout(() => session.destroy(), this.#timeoutMs);
    timer.unref();
    session.ping((error) => {
      clearTimeout(timer);
      if (this.#probing === session) this.#probing = undefined;
      if (error) session.destroy();
    });
  }

  /**
   * One call; a call whose connection failed before etcd answered anything (the member is down) goes
   * to the next endpoint, each endpoint at most once. Sending a Txn or LeaseGrant twice is harmless:
   * the same puts again, or a spare lease that expires unused.
   */
  #call(
    path: string,
    message: Uint8Array,
    token?: string,
    triesLeft = this.#endpoints.length - 1,
  ): Promise<Buffer> {
    if (this.#closed)
      return Promise.reject(new EtcdCallError(GRPC_STATUS.UNAVAILABLE, 'the etcd client is closed'));
    return new Promise<Buffer>((resolve, reject) => {
      let session: http2.ClientHttp2Session;
      let stream: http2.ClientHttp2Stream;
      try {
        session = this.#connect();
        const headers: http2.OutgoingHttpHeaders = {
          ':method': 'POST',
          ':path': path,
          'content-type': 'application/grpc',
          te: 'trailers',
          'grpc-timeout': `${this.#timeoutMs}m`,
        };
        // etcd reads the auth token from the `token` metadata (etcd3 and etcdctl send it the same way).
        if (token !== undefined) headers.token = token;
        stream = session.request(headers);
      } catch (error) {
        this.#session?.destroy();
        if (triesLeft > 0) resolve(this.#call(path, message, token, triesLeft - 1));
        else reject(new EtcdCallError(GRPC_STATUS.UNAVAILABLE, `cannot reach etcd: ${String(error)}`));
        return;
      }
      // Listeners are inline and anonymous: this runs per registration (docs/registry.md, "Hot paths").
      const call: CallState = {
        chunks: [],
        status: undefined,
        details: '',
        failure: undefined,
        unreached: false,
      };
      const timeoutMs = this.#timeoutMs;
      stream.setTimeout(timeoutMs, () => {
        call.failure = new EtcdCallError(
          GRPC_STATUS.DEADLINE_EXCEEDED,
          `etcd did not answer within ${timeoutMs} ms`,
        );
        stream.close(http2.constants.NGHTTP2_CANCEL);
        this.#probe(session);
      });
      let answered = false;
      stream.on('response', (headers) => {
        answered = true;
        readStatus(call, headers);
      });
      stream.on('trailers', (headers) => readStatus(call, headers));
      stream.on('data', (chunk: Buffer) => call.chunks.push(chunk));
      stream.on('error', (error: Error) => {
        if (call.failure === undefined && !answered) call.unreached = true;
        call.failure ??= new EtcdCallError(GRPC_STATUS.UNAVAILABLE, `etcd call failed: ${error.message}`);
      });
      stream.on('close', () => {
        if (call.unreached && triesLeft > 0) {
          // Whatever its events say yet, this session is done: the retry connects to the next endpoint.
          session.destroy();
          this.#retire(session);
          resolve(this.#call(path, message, token, triesLeft - 1));
        } else settle(call, resolve, reject);
      });
      stream.end(grpcFrame(message));
    });
  }
}
