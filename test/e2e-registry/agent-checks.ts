import type { InstanceState } from '@agent-reach/sdk/protocol';
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

/** Calls an agent's `POST /v1/invoke` and reads the NDJSON answer to its end; `onAck` runs at the first line. */
export async function invoke(
  url: string,
  input: unknown,
  onAck: () => void,
): Promise<Array<Record<string, unknown>>> {
  const response = await fetch(`${url}/v1/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ request_id: `e2e-${Date.now()}`, input }),
  });
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const before = text.includes('\n');
    text += decoder.decode(chunk, { stream: true });
    if (!before && text.includes('\n')) onAck();
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
