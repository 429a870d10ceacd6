// The churn load process (started by `churn-load.ts`): paced registrations, deregistrations and
// heartbeats over at most 64 kept-alive connections, one request on each at a time; every request but
// the deregistrations (whose targets are known only during the run) encoded before the run.

import { readFileSync } from 'node:fs';
import { registrationBody } from './agents.js';
import type { ChurnInstance, ChurnLoadMessage, ChurnLoadSpec } from './churn-load.js';
import { machineMs } from './dns-lag.js';
import { paced } from './paced.js';
import { encodeRequest, RawHttpPool } from './raw-http.js';

const spec = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ChurnLoadSpec;
const target = new URL(spec.url);
// Enough connections for the offered rates at a few ms per request; more requests wait in a queue.
const pool = new RawHttpPool(target, 64);

function send(message: ChurnLoadMessage): void {
  process.send!(message);
}

const registerTotal = Math.ceil(spec.rates.register * spec.seconds) + 1;
const registerRequests = Array.from({ length: registerTotal }, (_, i) =>
  encodeRequest(target, 'POST', '/v1/agents', registrationBody(spec.firstBody + i)),
);
// Heartbeat i goes to instance i mod n with that instance's next seq (firstSeq, firstSeq + 1, …).
const heartbeatTotal = spec.beating.length === 0 ? 0 : Math.ceil(spec.rates.heartbeat * spec.seconds) + 1;
const heartbeatRequests = Array.from({ length: heartbeatTotal }, (_, i) => {
  const beat = spec.beating[i % spec.beating.length]!;
  const seq = Math.floor(i / spec.beating.length) + spec.firstSeq;
  return encodeRequest(target, 'POST', `/v1/agents/${beat.id}/heartbeat`, `{"seq":${seq}}`, beat.token);
});
// Instances registered during the run that nobody follows: deregistered once the initial list is used up.
const registered: ChurnInstance[] = [];
let deregistered = 0;
let registeredTaken = 0;
let staleHeartbeats = 0;

async function churn(): Promise<void> {
  const [registrations, deregistrations, heartbeats] = await Promise.all([
    paced(spec.rates.register, spec.seconds, async (i) => {
      const res = await pool.request(registerRequests[i]!);
      if (res.status !== 201) throw new Error(`register: ${res.status} ${res.body.slice(0, 200)}`);
      const at = machineMs();
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
      const res = await pool.request(
        encodeRequest(target, 'DELETE', `/v1/agents/${gone.id}`, undefined, gone.token),
      );
      if (res.status >= 300) throw new Error(`deregister: ${res.status} ${res.body.slice(0, 200)}`);
      return true;
    }),
    paced(spec.rates.heartbeat, spec.seconds, async (i) => {
      const res = await pool.request(heartbeatRequests[i]!);
      // Overtaken on another socket by a later seq of the same instance: a right answer, counted apart.
      if (res.status === 409 && res.body.includes('STALE_HEARTBEAT')) {
        staleHeartbeats++;
        return true;
      }
      if (res.status >= 300) throw new Error(`heartbeat: ${res.status} ${res.body.slice(0, 200)}`);
      return true;
    }),
  ]);
  pool.close();
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
