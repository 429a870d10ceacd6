// Heartbeat loop in its own thread, so a CPU-bound handler on the main thread cannot starve it.
// Plain JavaScript on purpose: it must load under plain node, tsx and vitest alike.
import { parentPort, workerData } from 'node:worker_threads';

// Slots of the shared Int32Array; keep in step with LOAD_SLOT in load-gauge.ts.
const IN_FLIGHT = 0;
const CAPACITY = 1;
const QUEUE = 2;
const SEQ = 3;

const base = String(workerData.baseUrl).replace(/\/+$/, '');
// Touching fetch loads undici now, while idle, instead of during the first heartbeat.
const httpFetch = globalThis.fetch;
const view = new Int32Array(workerData.buffer);
/** @type {{generation: number, instanceId: string, leaseToken: string, intervalMs: number} | null} */
let lease = null;
let timer = null;

// Beats never overlap, so a slow answer only delays the next one; the 2 s floor covers the worker's
// first fetch, which loads undici and can take hundreds of milliseconds on a busy machine.
function requestTimeoutMs(intervalMs) {
  return Math.min(Math.max(intervalMs, 2000), 5000);
}

function schedule(delayMs) {
  clearTimeout(timer);
  timer = setTimeout(beat, delayMs);
}

function report(current, message) {
  parentPort.postMessage({ generation: current.generation, instanceId: current.instanceId, ...message });
}

async function readError(response) {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text);
    return { code: String(body.code ?? ''), message: String(body.message ?? text) };
  } catch {
    return { code: '', message: text.slice(0, 200) || response.statusText };
  }
}

async function beat() {
  const current = lease;
  if (!current) return;
  const started = performance.now();
  const seq = Atomics.add(view, SEQ, 1) + 1;
  const load = {
    in_flight: Math.max(0, Atomics.load(view, IN_FLIGHT)),
    capacity: Math.max(1, Atomics.load(view, CAPACITY)),
    queue: Math.max(0, Atomics.load(view, QUEUE)),
  };
  const url = `${base}/v1/agents/${encodeURIComponent(current.instanceId)}/heartbeat`;
  try {
    const response = await httpFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${current.leaseToken}` },
      body: JSON.stringify({ seq, load }),
      signal: AbortSignal.timeout(requestTimeoutMs(current.intervalMs)),
    });
    if (response.ok) {
      const body = await response.json().catch(() => ({}));
      const interval = Number(body.heartbeat_interval_ms);
      if (Number.isInteger(interval) && interval > 0 && lease === current) current.intervalMs = interval;
      report(current, { type: 'beat', seq, state: typeof body.state === 'string' ? body.state : null, load });
    } else {
      const { code, message } = await readError(response);
      // 410 means the registry forgot us; a refused lease token means the same: register afresh.
      const lost = response.status === 410 || code === 'UNKNOWN_INSTANCE' || code === 'LEASE_TOKEN_INVALID';
      if (lost && lease === current) lease = null;
      const type = lost ? 'lease_lost' : response.status === 409 ? 'stale' : 'rejected';
      report(current, { type, seq, status: response.status, code, message });
    }
  } catch (error) {
    const reason =
      error?.name === 'TimeoutError' ? 'timed out' : String(error?.cause?.code ?? error?.message ?? error);
    report(current, { type: 'unreachable', seq, message: reason });
  }
  if (lease !== current) return;
  schedule(Math.max(0, current.intervalMs - (performance.now() - started)));
}

parentPort.on('message', (message) => {
  if (message.type === 'lease') {
    if (message.fresh) Atomics.store(view, SEQ, 0);
    lease = {
      generation: message.generation,
      instanceId: message.instanceId,
      leaseToken: message.leaseToken,
      intervalMs: message.intervalMs,
    };
    schedule(message.intervalMs);
  } else if (message.type === 'pause') {
    lease = null;
    clearTimeout(timer);
  } else if (message.type === 'stop') {
    lease = null;
    clearTimeout(timer);
    parentPort.close();
  }
});
