import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';

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

/** One POST of `body` on a kept-alive connection of `agent`; resolves with the status and the body text. */
function post(url: URL, agent: Agent, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Registers `count` instances with bounded concurrency; returns their ids and lease tokens. Sent with
 * node:http on kept-alive connections, not `fetch`: undici's fetch cost this process as much CPU per
 * registration as the registry spent serving it, and on two cores that slowed the fill of 100,000 instances.
 */
export async function registerMany(
  url: string,
  count: number,
  concurrency = 32,
): Promise<{ id: string; token: string }[]> {
  const out: { id: string; token: string }[] = [];
  const target = new URL(`${url}/v1/agents`);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await post(target, agent, registrationBody(i));
      if (res.status !== 201) throw new Error(`register ${i}: ${res.status} ${res.text}`);
      const body = JSON.parse(res.text) as { instance_id: string; lease_token: string };
      out.push({ id: body.instance_id, token: body.lease_token });
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return out;
}

/**
 * A wrk Lua script that heartbeats the given instances round-robin with increasing seqs (from
 * `firstSeq` + 1, so a later run against the same instances is not refused as stale).
 *
 * Kept cheap for wrk, whose CPU comes out of the registry's share of the two cores: the request is one
 * string concatenation (`wrk.format` builds a header table and a string per header for every request),
 * and Lua's collector runs when the heap is 10× what survived its last cycle (default 2×), since each
 * cycle marks every id and token string (200,000 at 100,000 instances). The suites print wrk's own CPU
 * per request beside the registry's.
 */
export function heartbeatLua(instances: { id: string; token: string }[], firstSeq = 0): string {
  const ids = instances.map((x) => `"${x.id}"`).join(',');
  const tokens = instances.map((x) => `"${x.token}"`).join(',');
  return `local ids = {${ids}}
local tokens = {${tokens}}
local n = #ids
local seq = {}
local i = 0
collectgarbage("setpause", 1000)
request = function()
  i = i % n + 1
  local s = (seq[i] or ${firstSeq}) + 1
  seq[i] = s
  local body = '{"seq":' .. s .. ',"load":{"in_flight":0,"capacity":4,"queue":0}}'
  return "POST /v1/agents/" .. ids[i] .. "/heartbeat HTTP/1.1\\r\\nHost: " .. wrk.headers["Host"] ..
    "\\r\\nContent-Type: application/json\\r\\nAuthorization: Bearer " .. tokens[i] ..
    "\\r\\nContent-Length: " .. #body .. "\\r\\n\\r\\n" .. body
end
`;
}

/**
 * Length of a timed run of registrations (registry suite, churn suite's "alone"): one interval of the
 * leader's weight publication (5 s by default), so every run holds exactly one weight pass. A pass
 * examines every instance (at 100,000 instances in a mass warm-up it cost the registration run ~10 % of
 * a core), and a 2 s run held one pass or none, by chance.
 */
export const REGISTRATION_RUN_SECONDS = 5;

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
