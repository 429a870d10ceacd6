import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_BUILDS, buildApp } from '../../scripts/build.js';
import { dig } from '../dns/dns-tools.js';
import { isRunning, LineCollector, pollUntil, signalAndWait, trackChild } from '../harness/child-output.js';
import { freePort } from '../harness/ports.js';
import { REPO_ROOT } from '../harness/registry-process.js';

// `pnpm build` output, started the way an image starts it: plain node, no tsx anywhere.
let dir: string;
const children: ChildProcess[] = [];

/** Starts a built entry point with plain node (no loader, no NODE_OPTIONS) and its config file. */
async function startBuilt(entry: string, config: unknown, logs: LineCollector): Promise<ChildProcess> {
  const file = join(dir, `${entry.replaceAll('/', '-')}.yaml`);
  await writeFile(file, JSON.stringify(config));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', REACH_CONFIG: file };
  if (process.env.DATABASE_URL) env.DATABASE_URL = process.env.DATABASE_URL;
  const child = spawn(process.execPath, [join(REPO_ROOT, entry)], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  children.push(child);
  logs.attach(child.stdout);
  logs.attach(child.stderr);
  return child;
}

async function ready(child: ChildProcess, url: string, logs: LineCollector): Promise<void> {
  await pollUntil(
    async () => {
      if (!isRunning(child)) throw new Error(`exited before it was ready:\n${logs.tail()}`);
      try {
        const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        return res.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
    () => `${url} not ready:\n${logs.tail()}`,
  );
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-build-'));
  for (const target of APP_BUILDS) await buildApp(target);
});
afterAll(async () => {
  for (const child of children) if (isRunning(child)) await signalAndWait(child, 'SIGTERM');
  await rm(dir, { recursive: true, force: true });
});

describe('pnpm build', () => {
  it('writes every entry point the images start', () => {
    for (const { app, entries } of APP_BUILDS)
      for (const name of Object.keys(entries))
        expect(existsSync(join(REPO_ROOT, 'apps', app, 'dist', `${name}.js`))).toBe(true);
  });

  it('runs registry (DNS on its worker thread), orchestrator and console from dist/ with plain node, each ready', async () => {
    const [registryPort, dnsPort, orchestratorPort, consolePort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const config = {
      control_plane: { listen: `127.0.0.1:${registryPort}` },
      dns: { listen: `127.0.0.1:${dnsPort}`, server: `127.0.0.1:${dnsPort}`, responder_thread: true },
      storage: { path: join(dir, 'data') },
      orchestrator: {
        listen: `127.0.0.1:${orchestratorPort}`,
        registry_url: `http://127.0.0.1:${registryPort}`,
      },
      console: { listen: `127.0.0.1:${consolePort}` },
    };
    const logs = {
      registry: new LineCollector(),
      orchestrator: new LineCollector(),
      console: new LineCollector(),
    };
    const registry = await startBuilt('apps/registry/dist/main.js', config, logs.registry);
    await ready(registry, `http://127.0.0.1:${registryPort}`, logs.registry);
    const orchestrator = await startBuilt('apps/orchestrator/dist/main.js', config, logs.orchestrator);
    const consoleApp = await startBuilt('apps/console/dist/main.js', config, logs.console);
    await ready(orchestrator, `http://127.0.0.1:${orchestratorPort}`, logs.orchestrator);
    await ready(consoleApp, `http://127.0.0.1:${consolePort}`, logs.console);
    // The console serves its UI from the source tree, found from the bundle.
    const page = await fetch(`http://127.0.0.1:${consolePort}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    // The bundled responder worker answers DNS.
    const soa = await dig(dnsPort, 'agents.internal', 'SOA', '+short');
    expect(soa).toMatch(/^ns\.agents\.internal\. hostmaster\.agents\.internal\. \d+/);
    expect(logs.registry.tail(100)).toMatch(/dns responder/);
    for (const child of [consoleApp, orchestrator, registry]) {
      const exit = await signalAndWait(child, 'SIGTERM');
      expect(exit.code, 'a clean exit on SIGTERM').toBe(0);
    }
  });

  it('the CLI runs from dist/ too', async () => {
    const logs = new LineCollector();
    const child = spawn(process.execPath, [join(REPO_ROOT, 'apps/console/dist/cli.js'), '--version'], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    logs.attach(child.stdout);
    logs.attach(child.stderr);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, logs.tail()).toBe(0);
    expect(logs.tail()).toMatch(/\d+\.\d+\.\d+/);
  });
});
