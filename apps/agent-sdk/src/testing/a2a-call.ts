import { readSse } from '../http/index.js';
import {
  A2A_JSONRPC_PATH,
  A2A_VERSION,
  InvokeRequest,
  type InvokeRequestInput,
  REACH_CARD_EXTENSION,
  sendMessageParams,
  valueOfParts,
} from '../protocol/index.js';

/** One step of an A2A stream, in the terms of the two-phase call. */
export type CallLine =
  | { type: 'ack'; task_id: string }
  | { type: 'progress'; message: string }
  | { type: 'result'; output: unknown }
  | { type: 'error'; code: string; message: string; retryable: boolean; state: string };

/** What one A2A `SendStreamingMessage` over plain fetch gave. */
export interface CallAnswer {
  status: number;
  /** The stream as call lines; empty when the agent refused before the stream. */
  lines: CallLine[];
  /** The refusal body when there was no stream. */
  body?: unknown;
  ackAt: number;
  endAt: number;
}

// biome-ignore lint/suspicious/noExplicitAny: the test reads A2A JSON as it comes off the wire
type Json = Record<string, any>;

function lineOf(result: Json, output: { value: unknown }): CallLine | null {
  if (result.artifactUpdate) {
    output.value = valueOfParts(result.artifactUpdate.artifact?.parts ?? []);
    return null;
  }
  const source = result.task ?? result.statusUpdate;
  const status = source?.status ?? {};
  if (result.task && status.state === 'TASK_STATE_WORKING') return { type: 'ack', task_id: result.task.id };
  if (status.state === 'TASK_STATE_WORKING')
    return { type: 'progress', message: status.message?.parts?.[0]?.text ?? '' };
  if (status.state === 'TASK_STATE_COMPLETED') {
    const artifact = result.task?.artifacts?.[0];
    return { type: 'result', output: artifact ? valueOfParts(artifact.parts) : output.value };
  }
  const reach = status.message?.metadata?.[REACH_CARD_EXTENSION] ?? {};
  return {
    type: 'error',
    code: reach.code ?? status.state,
    message: status.message?.parts?.[0]?.text ?? '',
    retryable: reach.retryable ?? false,
    state: status.state,
  };
}

/** Calls an SDK agent over its A2A JSON-RPC binding with plain fetch, reading the SSE stream to its end. */
export async function a2aCall(
  baseUrl: string,
  call: InvokeRequestInput,
  headers: Record<string, string> = {},
): Promise<CallAnswer> {
  const rpc = {
    jsonrpc: '2.0',
    id: 1,
    method: 'SendStreamingMessage',
    params: sendMessageParams(InvokeRequest.parse(call)),
  };
  const response = await fetch(`${baseUrl}${A2A_JSONRPC_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': A2A_VERSION, ...headers },
    body: JSON.stringify(rpc),
  });
  if (!String(response.headers.get('content-type')).startsWith('text/event-stream')) {
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // a non-JSON refusal stays text
    }
    return { status: response.status, lines: [], body, ackAt: 0, endAt: performance.now() };
  }
  const output = { value: null as unknown };
  const lines: CallLine[] = [];
  let ackAt = 0;
  for await (const event of readSse(response.body!)) {
    const json = JSON.parse(event.data) as Json;
    const line = lineOf(json.result ?? {}, output);
    if (!line) continue;
    if (lines.length === 0) ackAt = performance.now();
    lines.push(line);
  }
  return { status: response.status, lines, ackAt, endAt: performance.now() };
}
