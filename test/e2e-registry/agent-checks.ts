import { readSse } from '@agent-reach/sdk/http';
import {
  A2A_JSONRPC_PATH,
  A2A_VERSION,
  type InstanceState,
  sendMessageParams,
  TASK_STATE,
  valueOfParts,
} from '@agent-reach/sdk/protocol';
import { pollUntil } from '../harness/child-output.js';
import type { E2eEnv } from './e2e-env.js';

/** Polls until the store holds no key of the instance and the list no longer shows it; returns the ms since `since`. */
export function goneAfter(env: E2eEnv, instanceId: string, since: number, limitMs: number): Promise<number> {
  return pollUntil(
    async () => {
      const keys = await env.store.keysOf(instanceId, env.registry.url);
      const listed = (await env.api.instances()).some((view) => view.instance_id === instanceId);
      return keys.length === 0 && !listed ? performance.now() - since : undefined;
    },
    limitMs,
    () => `keys of ${instanceId} still there after ${limitMs} ms`,
    25,
  );
}

/** Records every state `GET /v1/agents/{id}` reports (each change once) until `done` settles. */
export async function watchStates(
  env: E2eEnv,
  instanceId: string,
  done: Promise<unknown>,
): Promise<InstanceState[]> {
  let finished = false;
  void done.then(
    () => {
      finished = true;
    },
    () => {
      finished = true;
    },
  );
  const seen: InstanceState[] = [];
  while (!finished) {
    const view = await env.api.instance(instanceId);
    if (view && seen.at(-1) !== view.state) seen.push(view.state);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return seen;
}

/**
 * Calls an SDK agent over A2A (`SendStreamingMessage` on its JSON-RPC binding) and reads the SSE stream to
 * its end; `onAck` runs at the first event (the task, i.e. the ack). Returns the stream as call lines:
 * `ack`, `progress`, then `result` (with the output artifact's value) or `error`.
 */
export async function invoke(
  url: string,
  input: unknown,
  onAck: () => void,
): Promise<Array<Record<string, unknown>>> {
  const params = sendMessageParams({ request_id: `e2e-${Date.now()}`, input });
  const response = await fetch(`${url}${A2A_JSONRPC_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': A2A_VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendStreamingMessage', params }),
  });
  const lines: Array<Record<string, unknown>> = [];
  let output: unknown = null;
  for await (const event of readSse(response.body!)) {
    // biome-ignore lint/suspicious/noExplicitAny: a test reads the A2A JSON as it comes
    const result = (JSON.parse(event.data) as { result: any }).result;
    if (lines.length === 0) onAck();
    if (result.artifactUpdate) output = valueOfParts(result.artifactUpdate.artifact.parts);
    const state = (result.task ?? result.statusUpdate)?.status?.state;
    if (result.task && state === TASK_STATE.working) lines.push({ type: 'ack' });
    else if (state === TASK_STATE.working) lines.push({ type: 'progress' });
    else if (state === TASK_STATE.completed) lines.push({ type: 'result', output });
    else if (state) lines.push({ type: 'error', state });
  }
  return lines;
}
