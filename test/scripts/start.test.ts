import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineCollector, pollUntil, signalAndWait, trackChild } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';

// `pnpm start --port-base 9700` while the default registry port is taken; one start for the file.
const BASE = 9700;
const URLS = {
  registry: `http://127.0.0.1:${BASE + 1}`,
  orchestrator: `http://127.0.0.1:${BASE + 2}`,
  console: `http://127.0.0.1:${BASE + 89}`,
};
// tsx and PGlite take many seconds on a busy two-core machine.
const UP_TIMEOUT_MS = 180_000;

/** Holds 127.0.0.1:8701 unless something else already does (taken either way). */
function holdDefaultPort(): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(8701, '127.0.0.1', () => resolve(server));
  });
}

const ok = async (url: string) =>
  (await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => null))?.ok;

let dir: string;
let blocker: Server | null;
const out = new LineCollector();
let start: ReturnType<typeof spawn>;

const records = () => out.json();
const started = (service: string) =>
  records()
    .filter((r) => r.name === 'start' && r.msg === `started ${service}`)
    .map((r) => r.child_pid as number);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-start-'));
  blocker = await holdDefaultPort();
  const { DATABASE_URL: _db, ...env } = process.env;
  start = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/start.ts',
      '--port-base',
      String(BASE),
      '--no-demo',
      '--data',
      join(dir, 'data'),
    ],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  trackChild(start);
  out.attach(start.stdout);
  out.attach(start.stderr);
  await pollUntil(
    () => (records().some((r) => r.msg === 'Agent Reach is running') ? true : undefined),
    UP_TIMEOUT_MS,
    () => `pnpm start did not come up:\n${out.tail(40)}`,
    250,
  );
}, UP_TIMEOUT_MS + 10_000);

afterAll(async () => {
  if (start) await signalAndWait(start, 'SIGTERM', 20_000);
  blocker?.close();
  await rm(dir, { recursive: true, force: true });
}, 40_000);

describe('pnpm start --port-base', () => {
  it('comes up on the shifted ports while 8701 is taken, and says what it waited for', async () => {
    expect(await ok(`${URLS.registry}/readyz`)).toBe(true);
    expect(await ok(`${URLS.orchestrator}/readyz`)).toBe(true);
    expect(await ok(`${URLS.console}/healthz`)).toBe(true);
    const messages = records().map((r) => r.msg);
    for (const service of ['registry', 'orchestrator', 'console']) {
      expect(messages).toContain(
        `waiting for ${service} (${URLS[service as keyof typeof URLS]}/${service === 'console' ? 'healthz' : 'readyz'})`,
      );
      expect(messages).toContain(`${service} is ready`);
    }
    // --no-demo: no agents, no sample run.
    expect(records().find((r) => r.msg === 'Agent Reach is running')).toMatchObject({ agents: 0 });
    expect(records().some((r) => r.msg === 'running a sample task')).toBe(false);
  });

  it('logs every process in one shape: pino JSON records on a pipe', async () => {
    // A service's own lines come through its pipe and then start's: wait until every service has spoken.
    const names = ['start', 'registry', 'orchestrator', 'console'];
    await pollUntil(
      () => (names.every((name) => records().some((r) => r.name === name)) ? true : undefined),
      15_000,
      () => `not every service logged:\n${out.tail(20)}`,
      100,
    );
    const lines = out.lines;
    const parsed = records();
    expect(parsed.length).toBe(lines.length);
    for (const r of parsed) {
      expect(typeof r.level).toBe('number');
      expect(typeof r.time).toBe('number');
      expect(typeof r.msg).toBe('string');
      expect(typeof r.name).toBe('string');
    }
    expect(new Set(parsed.map((r) => r.name))).toEqual(new Set(names));
  });

  it('serves process metrics on the registry and console /metrics', async () => {
    for (const url of [URLS.registry, URLS.console]) {
      const text = await (await fetch(`${url}/metrics`)).text();
      expect(text, url).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(text, url).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    }
    // A request the console proxies is counted by upstream and outcome.
    await fetch(`${URLS.console}/registry/v1/agents`);
    const text = await (await fetch(`${URLS.console}/metrics`)).text();
    expect(text).toMatch(/^reach_console_proxy_requests_total\{upstream="registry",outcome="2xx"\} [1-9]/m);
  });

  it('restarts the orchestrator after it is killed, within seconds', async () => {
    const [first] = started('orchestrator');
    expect(first).toBeGreaterThan(0);
    const killedAt = performance.now();
    process.kill(first!, 'SIGKILL');
    await pollUntil(
      async () =>
        started('orchestrator').length >= 2 && (await ok(`${URLS.orchestrator}/readyz`)) ? true : undefined,
      90_000,
      () => `the orchestrator did not come back:\n${out.tail(20)}`,
      200,
    );
    const backMs = performance.now() - killedAt;
    const note = records().find(
      (r) => r.service === 'orchestrator' && String(r.msg).includes('restarting in'),
    );
    expect(note).toMatchObject({ level: 40, signal: 'SIGKILL', attempt: 1 });
    // Recorded for the notes; the limit is the test timeout, as the machine is shared.
    console.info(`orchestrator back ${Math.round(backMs)} ms after SIGKILL`);
    const [, second] = started('orchestrator');
    expect(second).not.toBe(first);
  }, 120_000);

  it('stops every process on SIGTERM and frees the ports', async () => {
    const exit = await signalAndWait(start, 'SIGTERM', 30_000);
    expect(exit.code).toBe(0);
    for (const url of Object.values(URLS)) expect(await ok(`${url}/healthz`), url).toBeFalsy();
  }, 40_000);
});
