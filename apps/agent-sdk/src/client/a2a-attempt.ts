import http from 'node:http';
import https from 'node:https';
import { createParser } from 'eventsource-parser';
import { type CancelTimer, type Clock, startTimer } from '../clock/index.js';
import { sendMessageParams, TASK_STATE, TERMINAL_TASK_STATES, valueOfParts } from '../protocol/a2a-wire.js';
import { A2A_VERSION, type A2ATarget, REACH_CARD_EXTENSION } from '../protocol/card.js';
import type { InvokeRequest } from '../protocol/invoke.js';
import type { FailureClass } from '../protocol/route.js';

/** The three timeouts of one attempt (seed article 2.3), in milliseconds. */
export interface AttemptTimeouts {
  /** Until the TCP connection stands. */
  connectMs: number;
  /** From connect until the first task event (the ack). */
  ackMs: number;
  /** From the ack until the terminal task state (the result). */
  executionMs: number;
  /** The caller's deadline on the attempt's clock; when set, the execution timer runs until it instead. */
  deadlineAt?: number;
}

/** Keep-alive agents per scheme; a fresh connection per attempt without them. */
export type HttpAgents = { http?: http.Agent; https?: https.Agent };

/** One attempt's inputs besides the target. */
export interface AttemptOptions extends AttemptTimeouts {
  /** The call: `request_id` becomes the message id (the idempotency key). */
  request: InvokeRequest;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  agents?: HttpAgents;
  clock: Clock;
  onProgress?: (line: ProgressLine) => void;
}

/** A progress report of a running task (a WORKING status update with a message). */
export interface ProgressLine {
  type: 'progress';
  request_id: string;
  message?: string;
  fraction?: number;
}

/** How one attempt ended; `acked` says whether the agent had started (decides fallback). */
export type AttemptOutcome =
  | { ok: true; output: unknown; acked: true; taskId: string | undefined; latencyMs: number }
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
type Json = Record<string, unknown>;
const MAX_ERROR_BODY = 64 * 1024;
const MAX_EVENT_CHARS = 16 * 1024 * 1024;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** Our code from an A2A error (`ErrorInfo.metadata.code` or `reason`), or a flat `{code, message}` body. */
export function errorOfBody(body: unknown): { code?: string; message?: string } {
  if (!isObject(body)) return {};
  const error = isObject(body.error) ? body.error : body;
  const details = Array.isArray(error.data) ? error.data : Array.isArray(error.details) ? error.details : [];
  let code: string | undefined;
  for (const detail of details) {
    if (!isObject(detail)) continue;
    const meta = isObject(detail.metadata) ? detail.metadata : {};
    if (typeof meta.code === 'string') code = meta.code;
    else if (code === undefined && typeof detail.reason === 'string') code = detail.reason;
  }
  if (code === undefined && typeof error.code === 'string') code = error.code;
  return {
    ...(code === undefined ? {} : { code }),
    ...(typeof error.message === 'string' ? { message: error.message } : {}),
  };
}

function requestOf(target: A2ATarget, request: InvokeRequest): { path: string; body: string } {
  const url = new URL(target.url);
  const base = url.pathname.replace(/\/$/, '');
  const params = sendMessageParams(request);
  if (target.binding === 'JSONRPC') {
    const rpc = { jsonrpc: '2.0', id: request.request_id, method: 'SendStreamingMessage', params };
    return { path: `${url.pathname}${url.search}`, body: JSON.stringify(rpc) };
  }
  return { path: `${base}/message:stream${url.search}`, body: JSON.stringify(params) };
}

/** The status message's text and our metadata, if any. */
function statusDetails(status: Json): { text?: string; reach: Json } {
  const message = isObject(status.message) ? status.message : undefined;
  const text = message ? valueOfParts(Array.isArray(message.parts) ? message.parts : []) : undefined;
  const meta = message && isObject(message.metadata) ? message.metadata : {};
  const reach = isObject(meta[REACH_CARD_EXTENSION]) ? (meta[REACH_CARD_EXTENSION] as Json) : {};
  return { ...(typeof text === 'string' ? { text } : {}), reach };
}

/**
 * Sends one A2A `SendStreamingMessage` (JSON-RPC, or `message:stream` on HTTP+JSON) and follows its SSE
 * stream with three distinct timers: connect (the socket's 'connect' event), ack (the first task event)
 * and execution (the terminal task state). The connect and ack timeouts are decided one `setImmediate`
 * after their timer fires, so I/O that already arrived counts. Never rejects. Aborting `signal`, an
 * execution timeout, or a task that wants input sends A2A `CancelTask` for the task before leaving.
 */
export function a2aAttempt(target: A2ATarget, options: AttemptOptions): Promise<AttemptOutcome> {
  return attempt(target, options, false);
}

function attempt(target: A2ATarget, options: AttemptOptions, isRetry: boolean): Promise<AttemptOutcome> {
  const { clock, signal } = options;
  const started = clock.now();
  const url = new URL(target.url);
  const { path, body } = requestOf(target, options.request);
  const requestId = options.request.request_id;
  return new Promise<AttemptOutcome>((resolve) => {
    let phase: 'connect' | 'ack' | 'execution' = 'connect';
    let settled = false;
    let gotResponse = false;
    let taskId: string | undefined;
    let output: unknown = null;
    let cancelTimer: CancelTimer | undefined;
    const secure = url.protocol === 'https:';
    const agent = secure ? options.agents?.https : options.agents?.http;
    const req = (secure ? https : http).request({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || (secure ? 443 : 80),
      method: 'POST',
      path,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        accept: 'text/event-stream',
        'a2a-version': A2A_VERSION,
        'a2a-extensions': REACH_CARD_EXTENSION,
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
    /** Leaves a running task: the agent is told to cancel it, so it frees its slot. */
    const abandon = (failure: FailureClass, message: string, extra: Partial<Omit<Failure, 'ok'>> = {}) => {
      if (settled) return;
      if (taskId !== undefined) cancelA2ATask(target, taskId, { agents: options.agents, timeoutMs: 2000 });
      fail(failure, message, extra);
    };
    const arm = (ms: number, failure: FailureClass, message: string) => {
      cancelTimer?.();
      const armedIn = phase;
      cancelTimer = startTimer(
        clock,
        () => {
          if (armedIn === 'execution') return abandon(failure, message);
          // A starved loop can run this timer before an already-arrived connect or ack is processed;
          // the next poll phase handles that I/O before setImmediate runs, so decide then.
          setImmediate(() => {
            if (phase === armedIn) fail(failure, message);
          });
        },
        ms,
      );
    };
    const onAbort = () => abandon('cancelled', 'the caller cancelled the attempt');

    const onConnected = () => {
      if (settled || phase !== 'connect') return;
      phase = 'ack';
      arm(options.ackMs, 'ack_timeout', `no ack within ${options.ackMs} ms of connecting`);
    };

    const acked = (id: unknown) => {
      if (typeof id === 'string' && id !== '') taskId = id;
      if (phase === 'execution') return;
      phase = 'execution';
      const executionMs =
        options.deadlineAt === undefined
          ? options.executionMs
          : Math.max(0, options.deadlineAt - clock.now());
      arm(executionMs, 'execution_timeout', `no result within ${Math.round(executionMs)} ms of the ack`);
    };

    /** A task reached a state that ends the call. */
    const conclude = (state: string, status: Json) => {
      if (state === TASK_STATE.completed) return finish({ ok: true, output, acked: true, taskId }, true);
      const { text, reach } = statusDetails(status);
      const code = typeof reach.code === 'string' ? reach.code : `TASK_${state.replace('TASK_STATE_', '')}`;
      const message = text ?? `the task ended ${state}`;
      const extra = { code, ...(typeof reach.retryable === 'boolean' ? { retryable: reach.retryable } : {}) };
      const failure: FailureClass = code === 'OVERLOADED' ? 'overloaded' : 'agent_error';
      // The agent waits for input or auth we cannot give: cancel the task rather than leave it hanging.
      if (!TERMINAL_TASK_STATES.has(state)) return abandon(failure, message, { ...extra, retryable: false });
      fail(failure, message, extra);
    };

    const onStreamResponse = (event: Json) => {
      if (isObject(event.message)) {
        // A direct message answer: the agent did the work without a task.
        acked(undefined);
        const parts = Array.isArray(event.message.parts) ? event.message.parts : [];
        return finish({ ok: true, output: valueOfParts(parts), acked: true, taskId }, true);
      }
      if (isObject(event.artifactUpdate)) {
        const artifact = isObject(event.artifactUpdate.artifact) ? event.artifactUpdate.artifact : {};
        acked(event.artifactUpdate.taskId);
        output = valueOfParts(Array.isArray(artifact.parts) ? artifact.parts : []);
        return;
      }
      const task = isObject(event.task) ? event.task : undefined;
      const update = isObject(event.statusUpdate) ? event.statusUpdate : undefined;
      const source = task ?? update;
      if (!source) return fail('stream_broken', 'an A2A stream event of no known kind');
      acked(task ? task.id : update?.taskId);
      if (task && Array.isArray(task.artifacts) && task.artifacts.length > 0) {
        const first = task.artifacts[0] as Json;
        output = valueOfParts(Array.isArray(first.parts) ? first.parts : []);
      }
      const status = isObject(source.status) ? source.status : {};
      const state = typeof status.state === 'string' ? status.state : TASK_STATE.working;
      if (state === TASK_STATE.working || state === TASK_STATE.submitted) {
        if (update && isObject(status.message)) {
          const { text, reach } = statusDetails(status);
          options.onProgress?.({
            type: 'progress',
            request_id: requestId,
            ...(text === undefined ? {} : { message: text }),
            ...(typeof reach.fraction === 'number' ? { fraction: reach.fraction } : {}),
          });
        }
        return;
      }
      conclude(state, status);
    };

    const onEvent = (name: string, data: string) => {
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        return fail('stream_broken', `not JSON: ${data.slice(0, 120)}`);
      }
      if (!isObject(json)) return fail('stream_broken', `not an A2A event: ${data.slice(0, 120)}`);
      const rpcError = target.binding === 'JSONRPC' ? json.error : name === 'error' ? json : undefined;
      if (rpcError !== undefined) {
        const { code, message } = errorOfBody(target.binding === 'JSONRPC' ? { error: rpcError } : rpcError);
        return fail('agent_error', message ?? 'the agent sent an error event', code ? { code } : {});
      }
      const result = target.binding === 'JSONRPC' ? json.result : json;
      if (!isObject(result)) return fail('stream_broken', `not an A2A event: ${data.slice(0, 120)}`);
      onStreamResponse(result);
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
      const type = String(res.headers['content-type'] ?? '');
      if (status !== 200 || !type.startsWith('text/event-stream')) {
        // An answer without a stream is a refusal before the ack: read it (bounded) for its code.
        let text = '';
        res.on('data', (chunk: string) => {
          if (text.length < MAX_ERROR_BODY) text += chunk;
        });
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const error = errorOfBody(parsed);
          const message = error.message ?? `HTTP ${status}`;
          const extra = { status, ...(error.code ? { code: error.code } : {}) };
          if (status === 429 || error.code === 'OVERLOADED') fail('overloaded', message, extra);
          else if (status >= 500) fail('http_5xx', message, extra);
          else fail('agent_error', message, extra);
        });
        res.on('error', () =>
          fail(status >= 500 ? 'http_5xx' : 'stream_broken', `HTTP ${status}, body broken`),
        );
        return;
      }
      // Bytes since the last complete event: a stream that never completes one is cut off.
      let pending = 0;
      const parser = createParser({
        onEvent: (event) => {
          pending = 0;
          if (!settled) onEvent(event.event ?? 'message', event.data);
        },
      });
      res.on('data', (chunk: string) => {
        if (settled) return;
        pending += chunk.length;
        if (pending > MAX_EVENT_CHARS)
          return fail('stream_broken', `an SSE event is longer than ${MAX_EVENT_CHARS} characters`);
        parser.feed(chunk);
      });
      res.on('end', () => {
        if (!settled) fail('stream_broken', 'the stream ended before the task did');
      });
      res.on('aborted', () => fail('stream_broken', 'the agent closed the stream mid-way'));
      res.on('error', (error) => fail('stream_broken', error.message));
      res.on('close', () => fail('stream_broken', 'the stream closed before the task ended'));
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
        void attempt(target, options, true).then((outcome) =>
          resolve({ ...outcome, latencyMs: outcome.latencyMs + spent }),
        );
        return;
      }
      if (phase === 'connect') fail('connect', error.message);
      else fail('stream_broken', error.message);
    });

    req.end(body);
  });
}

/** Sends A2A `CancelTask` for `taskId` without waiting for it (a failed cancel changes nothing for the caller). */
export function cancelA2ATask(
  target: A2ATarget,
  taskId: string,
  options: { agents?: HttpAgents | undefined; timeoutMs: number },
): Promise<boolean> {
  const url = new URL(target.url);
  const secure = url.protocol === 'https:';
  const jsonRpc = target.binding === 'JSONRPC';
  const body = jsonRpc
    ? JSON.stringify({ jsonrpc: '2.0', id: `cancel:${taskId}`, method: 'CancelTask', params: { id: taskId } })
    : '';
  const path = jsonRpc
    ? `${url.pathname}${url.search}`
    : `${url.pathname.replace(/\/$/, '')}/tasks/${encodeURIComponent(taskId)}:cancel${url.search}`;
  const agent = secure ? options.agents?.https : options.agents?.http;
  return new Promise((resolve) => {
    const req = (secure ? https : http).request(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (secure ? 443 : 80),
        method: 'POST',
        path,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'a2a-version': A2A_VERSION,
        },
        timeout: options.timeoutMs,
        ...(agent ? { agent } : { agent: false }),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end(body);
  });
}
