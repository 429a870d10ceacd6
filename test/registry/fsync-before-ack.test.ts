import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBody } from '../e2e-registry/http-registration.js';
import { RegistryProcess } from '../harness/registry-process.js';

let dir: string;
let registry: RegistryProcess;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-fsync-ack-'));
  registry = await RegistryProcess.start({
    config: {
      // Leases far longer than a restart under tsx: nothing expires while the process is down.
      control_plane: { heartbeat_interval: '60s', heartbeat_timeout: '300s' },
      storage: { type: 'embedded', path: join(dir, 'data'), fsync_before_ack: true },
    },
  });
});
afterAll(async () => {
  await registry?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Registers on `port`: the instance id once acknowledged; undefined when the kill cut the request off. */
async function register(port: number, killed: () => boolean): Promise<string | undefined> {
  let res: Response;
  try {
    res = await fetch(`${registry.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registerBody('summarizer-v2', port, 'summarize')),
    });
  } catch (error) {
    if (killed()) return undefined;
    throw error;
  }
  const reply = (await res.json()) as { instance_id?: string };
  expect(res.status, JSON.stringify(reply)).toBe(201);
  return reply.instance_id;
}

describe('the registry process with storage.fsync_before_ack', () => {
  it('finds every acknowledged registration after a SIGKILL amid a stream of registrations', async () => {
    const acknowledged: string[] = [];
    let killed: Promise<unknown> | undefined;
    // 16 clients register until 300 acknowledgements arrived; the process is killed at the 300th, with
    // the others' registrations in flight (some applied in memory, their fsync not yet done).
    await Promise.all(
      Array.from({ length: 16 }, async (_, client) => {
        for (let i = 0; killed === undefined; i++) {
          const id = await register(9000 + client * 1000 + i, () => killed !== undefined);
          if (id === undefined || killed !== undefined) continue;
          acknowledged.push(id);
          if (acknowledged.length === 300) killed = registry.kill();
        }
      }),
    );
    expect(await killed).toEqual({ code: null, signal: 'SIGKILL' });

    await registry.restart();
    const listed = await fetch(`${registry.url}/v1/agents`);
    const ids = new Set(
      ((await listed.json()) as { instances: Array<{ instance_id: string }> }).instances.map(
        (view) => view.instance_id,
      ),
    );
    const lost = acknowledged.filter((id) => !ids.has(id));
    expect(lost).toEqual([]);
    expect(acknowledged).toHaveLength(300);
  });
});
