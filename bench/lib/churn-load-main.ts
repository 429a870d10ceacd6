// The churn load process (started by `churn-load.ts`): paced registrations, deregistrations and
// heartbeats over one kept-alive node:http agent with bounded sockets; bodies built before the run.

import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { registrationBody } from './agents.js';
import type { ChurnInstance, ChurnLoadMessage, ChurnLoadSpec } from './churn-load.js';
import { epochMs } from './dns-lag.js';
import { paced } from './paced.js';

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ChurnLoadSpec;
const target = new URL(spec.url);
// Enough sockets for the offered rates at a few ms per request; more requests wait in the agent's queue.
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function send(message: ChurnLoadMessage): void {
  process.send!(message);
}

/** One request; resolves with the status and the body as text. */
function call(
  method: string,
  path: string,
  body?: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string | number> = {};
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return new Promise((resolve, reject) => {
    const req = request(
      { agent, hostname: target.hostname, port: target.port, method, path, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const registerTotal = Math.ceil(spec.rates.register * spec.seconds) + 1;
const bodies = Array.from({ length: registerTotal }, (_, i) => registrationBody(spec.firstBody + i));
// Instances registered during the run that nobody follows: deregistered once the initial list is used up.
const registered: ChurnInstance[] = [];
let deregistered = 0;
let registeredTaken = 0;
const seqs = new Uint32Array(spec.beating.length);
let staleHeartbeats = 0;

async function churn(): Promise<void> {
  const [registrations, deregistrations, heartbeats] = await Promise.all([
    paced(spec.rates.register, spec.seconds, async (i) => {
      const res = await call('POST', '/v1/agents', bodies[i]);
      if (res.status !== 201) throw new Error(`register: ${res.status} ${res.body.slice(0, 200)}`);
      const at = epochMs();
      const { instance_id, lease_token } = JSON.parse(res.body) as {
        instance_id: string;
        lease_token: string;
      };
      if (i % spec.lagEvery === 0) send({ registered: instance_id, at });
      else registered.push({ id: instance_id, token: lease_token });
      return true;
    }),
    paced(spec.rates.deregister, spec.seconds, async () => {
      const gone =
        deregistered < spec.deregister.length
          ? spec.deregister[deregistered++]
          : registered[registeredTaken++];
      // Nobody left to deregister (registrations fell behind): not offered, not a failure of the registry.
      if (gone === undefined) {
        registeredTaken = Math.min(registeredTaken, registered.length);
        return 'none';
      }
      const res = await call('DELETE', `/v1/agents/${gone.id}`, undefined, gone.token);
      if (res.status >= 300) throw new Error(`deregister: ${res.status} ${res.body.slice(0, 200)}`);
      return true;
    }),
    paced(spec.rates.heartbeat, spec.seconds, async (i) => {
      const n = i % spec.beating.length;
      const beat = spec.beating[n]!;
      const seq = (seqs[n] ?? 0) + 1;
      seqs[n] = seq;
      const res = await call('POST', `/v1/agents/${beat.id}/heartbeat`, `{"seq":${seq}}`, beat.token);
      // Overtaken on another socket by a later seq of the same instance: a right answer, counted apart.
      if (res.status === 409 && res.body.includes('STALE_HEARTBEAT')) {
        staleHeartbeats++;
        return true;
      }
      if (res.status >= 300) throw new Error(`heartbeat: ${res.status} ${res.body.slice(0, 200)}`);
      return true;
    }),
  ]);
  send({ done: { registrations, deregistrations, heartbeats, staleHeartbeats } });
}

process.once('message', () => {
  churn().catch((error: unknown) => {
    process.stderr.write(`churn load failed: ${String(error)}\n`);
    process.exit(1);
  });
});
// The bench reads this process's CPU after `done`, then disconnects.
process.once('disconnect', () => process.exit(0));
send({ ready: true });
