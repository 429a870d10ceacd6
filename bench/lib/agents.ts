import { createHash } from 'node:crypto';

/** A registration body for bench instance `i` (a handful of agent names, each with many replicas). */
export function registrationBody(i: number): string {
  const agent = `bench-agent-${i % 50}`;
  return JSON.stringify({
    declaration: {
      agent_name: agent,
      domain: 'bench',
      capabilities: { [`op_${i % 50}`]: { input: ['text'], output: ['text'], serves: ['writing'] } },
      priority: 50,
      idempotent: true,
      substitutable: true,
    },
    endpoint: { host: '127.0.0.1', port: 20_000 + (i % 40_000) },
    card_sha256: createHash('sha256').update(agent).digest('base64url'),
  });
}

/** Registers `count` instances with bounded concurrency; returns their ids and lease tokens. */
export async function registerMany(
  url: string,
  count: number,
  concurrency = 32,
): Promise<{ id: string; token: string }[]> {
  const out: { id: string; token: string }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${url}/v1/agents`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: registrationBody(i),
      });
      if (res.status !== 201) throw new Error(`register ${i}: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { instance_id: string; lease_token: string };
      out.push({ id: body.instance_id, token: body.lease_token });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** A wrk Lua script that heartbeats the given instances round-robin with increasing seqs. */
export function heartbeatLua(instances: { id: string; token: string }[]): string {
  const ids = instances.map((x) => `"${x.id}"`).join(',');
  const tokens = instances.map((x) => `"${x.token}"`).join(',');
  return `local ids = {${ids}}
local tokens = {${tokens}}
local seq = {}
local i = 0
request = function()
  i = i % #ids + 1
  seq[i] = (seq[i] or 0) + 1
  return wrk.format("POST", "/v1/agents/" .. ids[i] .. "/heartbeat",
    {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. tokens[i]},
    '{"seq":' .. seq[i] .. ',"load":{"in_flight":0,"capacity":4,"queue":0}}')
end
`;
}

/** A wrk Lua script that registers new instances. */
export function registerLua(): string {
  return `local n = 0
request = function()
  n = n + 1
  local agent = "wrk-agent-" .. (n % 50)
  local body = '{"declaration":{"agent_name":"' .. agent .. '","domain":"bench","capabilities":{"op_' .. (n % 50) ..
    '":{"input":["text"],"output":["text"],"serves":["writing"]}},"priority":50,"idempotent":true,"substitutable":true},' ..
    '"endpoint":{"host":"127.0.0.1","port":' .. (30000 + n % 30000) .. '},' ..
    '"card_sha256":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}'
  return wrk.format("POST", "/v1/agents", {["Content-Type"] = "application/json"}, body)
end
`;
}
