import http from 'node:http';
import https from 'node:https';
import { type CancelTimer, type Clock, startTimer } from '../clock/index.js';
import { InvokeLine } from '../protocol/invoke.js';
import type { Endpoint } from '../protocol/registration.js';
import type { FailureClass } from '../protocol/route.js';
import { NdjsonLines } from './ndjson-lines.js';

/** The three timeouts of one attempt (seed article 2.3), in milliseconds. */
export interface AttemptTimeouts {
  /** Until the TCP connection stands. */
  connectMs: number;
  /** From connect until the first NDJSON line (the ack). */
  ackMs: number;
  /** From the ack until the result. */
  executionMs: number;
  /** The caller's deadline on the attempt's clock; when set, the execution timer runs until it instead. */
  deadlineAt?: number;
}

/** One attempt's inputs besides the endpoint. */
export interface AttemptOptions extends AttemptTimeouts {
  /** The serialized InvokeRequest. */
  body: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Keep-alive agents per scheme; a fresh connection per attempt without them. */
  agents?: { http?: http.Agent; https?: https.Agent };
  clock: Clock;
  onProgress?: (line: ProgressLine) => void;
}

/** A progress line of an invoke stream. */
export type ProgressLine = Extract<InvokeLine, { type: 'progress' }>;

/** How one attempt ended; `acked` says whether the agent had started (decides fallback). */
export type AttemptOutcome =
  | { ok: true; output: unknown; acked: true; replay: boolean; latencyMs: number }
  | {
      ok: false;
      failure: FailureClass;
      acked: boolean;
      message: string;
      /** The agent's error code, when it sent one. */
      code?: string;
      /** The agent's own view of whether trying again may help. */
      retryable?: boolean;
      status?: number;
      latencyMs: number;
    };

type Failure = Extract<AttemptOutcome, { ok: false }>;
type Unmeasured = Omit<Extract<AttemptOutcome, { ok: true }>, 'latencyMs'> | Omit<Failure, 'latencyMs'>;
const MAX_ERROR_BODY = 64 * 1024;

function errorFromBody(text: string): { code?: string; message?: string } {
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    return {
      ...(typeof body.code === 'string' ? { code: body.code } : {}),
      ...(typeof body.message === 'string' ? { message: body.message } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Sends one `POST /v1/invoke` and follows its NDJSON stream with three distinct timers: connect (the
 * socket's 'connect' event), ack (first line) and execution (final line). The connect and ack timeouts
 * are decided one `setImmediate` after their timer fires, so I/O that already arrived counts. Never
 * rejects; aborting `signal` destroys the request, so the agent sees its caller go away.
 */
export function invokeAttempt(
  endpoint: Pick<Endpoint, 'host' | 'port' | 'scheme'>,
  options: AttemptOptions,
): Promise<AttemptOutcome> {
  return attempt(endpoint, options, false);
}

function attempt(
  endpoint: Pick<Endpoint, 'host' | 'port' | 'scheme'>,
  options: AttemptOptions,
  isRetry: boolean,
): Promise<AttemptOutcome> {
  const { clock, signal } = options;
  const started = clock.now();
  return new Promise<AttemptOutcome>((resolve) => {
    let phase: 'connect' | 'ack' | 'execution' = 'connect';
    let settled = false;
    let gotResponse = false;
    let cancelTimer: CancelTimer | undefined;
    const secure = endpoint.scheme === 'https';
    const agent = secure ? options.agents?.https : options.agents?.http;
    const req = (secure ? https : http).request({
      host: endpoint.host,
      port: endpoint.port,
      method: 'POST',
      path: '/v1/invoke',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(options.body),
        accept: 'application/x-ndjson',
        ...options.headers,
      },
      ...(agent ? { agent } : { agent: false }),
    });

    const finish = (outcome: Unmeasured, keepSocket: boolean) => {
      if (settled) return;
      settled = true;
      cancelTimer?.();
      signal?.removeEventListener('abort', onAbort);
      if (!keepSocket) req.destroy();
      resolve({ ...outcome, latencyMs: clock.now() - started });
    };
    const fail = (failure: FailureClass, message: string, extra: Partial<Omit<Failure, 'ok'>> = {}) =>
      finish({ ok: false, failure, acked: phase === 'execution', message, ...extra }, false);
    const arm = (ms: number, failure: FailureClass, message: string) => {
      cancelTimer?.();
      const armedIn = phase;
      cancelTimer = startTimer(
        clock,
        () => {
          if (armedIn === 'execution') return fail(failure, message);
          // A starved loop can run this timer before an already-arrived connect or ack is processed;
          // the next poll phase handles that I/O before setImmediate runs, so decide then.
          setImmediate(() => {
            if (phase === armedIn) fail(failure, message);
          });
        },
        ms,
      );
    };
    const onAbort = () => fail('cancelled', 'the caller cancelled the attempt');

    const onConnected = () => {
      if (settled || phase !== 'connect') return;
      phase = 'ack';
      arm(options.ackMs, 'ack_timeout', `no ack within ${options.ackMs} ms of connecting`);
    };

    const onLine = (text: string) => {
      let line: InvokeLine;
      try {
        const parsed = InvokeLine.safeParse(JSON.parse(text));
        if (!parsed.success) return fail('stream_broken', `not an invoke line: ${text.slice(0, 120)}`);
        line = parsed.data;
      } catch {
        return fail('stream_broken', `not JSON: ${text.slice(0, 120)}`);
      }
      if (line.type === 'ack') {
        if (phase === 'execution') return;
        phase = 'execution';
        const executionMs =
          options.deadlineAt === undefined
            ? options.executionMs
            : Math.max(0, options.deadlineAt - clock.now());
        arm(executionMs, 'execution_timeout', `no result within ${Math.round(executionMs)} ms of the ack`);
        return;
      }
      if (line.type === 'progress') return options.onProgress?.(line);
      if (line.type === 'result') {
        phase = 'execution';
        return finish({ ok: true, output: line.output, acked: true, replay: false }, true);
      }
      const failure: FailureClass = line.code === 'OVERLOADED' ? 'overloaded' : 'agent_error';
      fail(failure, line.message, { code: line.code, retryable: line.retryable });
    };

    arm(options.connectMs, 'connect', `no connection within ${options.connectMs} ms`);
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });

    req.on('socket', (socket) => {
      if (socket.connecting) socket.once('connect', onConnected);
      else onConnected();
    });

    req.on('response', (res) => {
      gotResponse = true;
      res.setEncoding('utf8');
      const status = res.statusCode ?? 0;
      if (status !== 200) {
        // Read the error body (bounded) for its code and message; the ack timer still runs.
        let text = '';
        res.on('data', (chunk: string) => {
          if (text.length < MAX_ERROR_BODY) text += chunk;
        });
        res.on('end', () => {
          const body = errorFromBody(text);
          const message = body.message ?? `HTTP ${status}`;
          const extra = { status, ...(body.code ? { code: body.code } : {}) };
          if (status === 429) fail('overloaded', message, extra);
          else if (status >= 500) fail('http_5xx', message, extra);
          else fail('agent_error', message, extra);
        });
        res.on('error', () =>
          fail(status >= 500 ? 'http_5xx' : 'stream_broken', `HTTP ${status}, body broken`),
        );
        return;
      }
      const lines = new NdjsonLines();
      res.on('data', (chunk: string) => {
        if (settled) return;
        try {
          for (const line of lines.push(chunk)) {
            onLine(line);
            if (settled) return;
          }
        } catch (error) {
          fail('stream_broken', (error as Error).message);
        }
      });
      res.on('end', () => {
        const rest = lines.rest();
        if (!settled && rest.length > 0) onLine(rest);
        if (!settled) fail('stream_broken', 'the stream ended without a result');
      });
      res.on('aborted', () => fail('stream_broken', 'the agent closed the stream mid-way'));
      res.on('error', (error) => fail('stream_broken', error.message));
      res.on('close', () => fail('stream_broken', 'the stream closed without a result'));
    });

    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      // A kept-alive socket the agent had already closed: one fresh try, which is not a fallback.
      if (
        req.reusedSocket &&
        !gotResponse &&
        !isRetry &&
        (error.code === 'ECONNRESET' || error.code === 'EPIPE')
      ) {
        settled = true;
        cancelTimer?.();
        signal?.removeEventListener('abort', onAbort);
        const spent = clock.now() - started;
        void attempt(endpoint, options, true).then((outcome) =>
          resolve({ ...outcome, latencyMs: outcome.latencyMs + spent }),
        );
        return;
      }
      if (phase === 'connect') fail('connect', error.message);
      else fail('stream_broken', error.message);
    });

    req.end(options.body);
  });
}
