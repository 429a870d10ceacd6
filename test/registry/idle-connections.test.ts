import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../harness/child-output.js';
import { RegistryProcess } from '../harness/registry-process.js';

const IDLE = 5_000;
// A connection that never sends a request head is closed at the header timeout; one idle between
// requests at the idle timeout. Both are set alike so either closes the silent ones.
const IDLE_TIMEOUT_MS = 20_000;

let registry: RegistryProcess;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-idle-'));
  registry = await RegistryProcess.start({
    config: {
      control_plane: {
        heartbeat_interval: '1s',
        heartbeat_timeout: '10s',
        connections: { idle_timeout: '20s', header_timeout: '20s', max_connections: 8_000 },
      },
      storage: { type: 'embedded', path: dir },
    },
  });
});
afterAll(async () => {
  await registry?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const openFds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

function openIdle(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('connection hygiene of the registry process', () => {
  it(`keeps serving heartbeats with ${IDLE} idle connections open, closes them within the idle timeout, and its fds return to baseline`, async () => {
    const pid = registry.pid!;
    const reg = await fetch(`${registry.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        declaration: {
          agent_name: 'idle-test',
          domain: 'testing',
          capabilities: { crunch: { input: ['text'], output: ['text'] } },
        },
        endpoint: { host: '127.0.0.1', port: 9300 },
        card_sha256: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      }),
    });
    expect(reg.status).toBe(201);
    const { instance_id, lease_token } = (await reg.json()) as { instance_id: string; lease_token: string };
    let seq = 0;
    const beat = async () => {
      const started = performance.now();
      const res = await fetch(`${registry.url}/v1/agents/${instance_id}/heartbeat`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${lease_token}`,
          connection: 'close',
        },
        body: JSON.stringify({ seq: ++seq }),
        signal: AbortSignal.timeout(5_000),
      });
      await res.text();
      return { status: res.status, ms: performance.now() - started };
    };
    expect((await beat()).status).toBe(200);
    // Give the fetch's own connection time to close, then take the baseline.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const baseline = openFds(pid);

    const sockets: Socket[] = [];
    // How long each idle connection lived, from connect to the registry closing it.
    const lifetimes: number[] = [];
    for (let i = 0; i < IDLE; i += 250) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(250, IDLE - i) }, () => openIdle(registry.port)),
      );
      const openedAt = performance.now();
      for (const socket of batch) {
        socket.on('error', () => undefined);
        socket.once('close', () => lifetimes.push(performance.now() - openedAt));
        // Read, so the registry's FIN is seen (a paused socket never ends).
        socket.resume();
        sockets.push(socket);
      }
    }
    // The registry holds them all (accepted, one fd each) ...
    await pollUntil(
      async () => (openFds(pid) >= baseline + IDLE * 0.98 ? true : undefined),
      5_000,
      () =>
        `the registry holds ${openFds(pid) - baseline} of ${IDLE} connections (${lifetimes.length} closed already)`,
      50,
    );
    // ... and still answers heartbeats promptly, all the while they are open.
    const answers: Array<{ status: number; ms: number; error?: string }> = [];
    const beating = setInterval(() => {
      void beat().then(
        (answer) => answers.push(answer),
        // What failed is kept, so a failure says whether it was the timeout, a reset or a refusal.
        (error: Error) =>
          answers.push({
            status: 0,
            ms: Number.POSITIVE_INFINITY,
            error: `${error.name}: ${error.message} (${String((error.cause as Error | undefined)?.message ?? '')})`,
          }),
      );
    }, 500);
    // Every idle connection is closed by the registry within the idle timeout (plus scheduling slack).
    await pollUntil(
      async () => (lifetimes.length === IDLE ? true : undefined),
      IDLE_TIMEOUT_MS + 10_000,
      () => `${IDLE - lifetimes.length} idle connections still open`,
      100,
    );
    clearInterval(beating);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(1_000);
    expect(Math.max(...lifetimes)).toBeLessThan(IDLE_TIMEOUT_MS + 3_000);
    expect(lifetimes).toHaveLength(IDLE);
    expect(Math.min(...lifetimes)).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 1_500);
    await pollUntil(
      async () => (openFds(pid) <= baseline + 5 ? true : undefined),
      5_000,
      () => `fds ${openFds(pid)} against a baseline of ${baseline}`,
      100,
    );
    expect((await beat()).status).toBe(200);
    const metrics = await (await fetch(`${registry.url}/metrics`)).text();
    const idleClosed = /reach_registry_connections_idle_closed_total\{server="http"\} (\d+)/.exec(metrics);
    expect(Number(idleClosed?.[1])).toBeGreaterThanOrEqual(IDLE);
    for (const socket of sockets) socket.destroy();
  });
});
