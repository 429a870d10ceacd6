// One contract, checked on every SDK: drives an agent only over the wire — its card, /health, A2A calls
// through @a2a-js/sdk's client (an implementation nobody here wrote), and what the registry sees of it.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Client, ClientFactory } from '@a2a-js/sdk/client';
import { AgentCard, cardExtension, type InstanceView } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProcess, AgentReady } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { freePort } from '../harness/ports.js';
import { RegistryProcess } from '../harness/registry-process.js';

/** Short liveness, so a silent agent turns suspect within the test (interval 1 s, lease 3 s). */
const INTERVAL_MS = 1_000;
const REACH_EXTENSION = 'https://agent-reach.dev/extensions/capabilities/v1';

/** An SDK under test: how to start its conformance probe (see fixtures/) against a registry. */
export interface SdkUnderTest {
  name: string;
  spawnProbe(registryUrl: string, env?: Record<string, string>): AgentProcess;
}

type ProbeInput = { value?: unknown; sleep_ms?: number; busy_ms?: number; fail_code?: string };

function message(input: ProbeInput, requestId = randomUUID(), reach: Record<string, unknown> = {}) {
  return {
    tenant: '',
    configuration: undefined,
    metadata: undefined,
    message: {
      messageId: requestId,
      contextId: '',
      taskId: '',
      role: 1, // ROLE_USER
      parts: [
        {
          content: { $case: 'data' as const, value: input },
          metadata: undefined,
          filename: '',
          mediaType: '',
        },
      ],
      metadata: { [REACH_EXTENSION]: { capability: 'echo', ...reach } },
      extensions: [REACH_EXTENSION],
      referenceTaskIds: [],
    },
  };
}

/** The data of a task's last artifact (the probe answers `{echo, calls, sdk}`). */
function output(task: {
  artifacts: Array<{ parts: Array<{ content?: { $case: string; value: unknown } }> }>;
}) {
  const part = task.artifacts.at(-1)?.parts[0]?.content;
  return part?.$case === 'data' ? (part.value as { echo: unknown; calls: number; sdk: string }) : undefined;
}

async function instances(registryUrl: string): Promise<InstanceView[]> {
  const res = await fetch(`${registryUrl}/v1/agents`);
  return ((await res.json()) as { instances: InstanceView[] }).instances;
}

export function agentConformanceSuite(sdk: SdkUnderTest): void {
  describe(`agent conformance: ${sdk.name}`, () => {
    let registry: RegistryProcess;
    let dir: string;
    let probe: AgentProcess;
    let ready: AgentReady;
    let client: Client;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'reach-conformance-'));
      registry = await RegistryProcess.start({
        config: {
          control_plane: {
            heartbeat_interval: `${INTERVAL_MS}ms`,
            heartbeat_timeout: `${3 * INTERVAL_MS}ms`,
          },
          storage: { type: 'embedded', path: dir },
        },
      });
      probe = sdk.spawnProbe(registry.url);
      ready = await probe.ready();
      client = await new ClientFactory().createFromUrl(ready.url);
    });
    afterAll(async () => {
      if (probe && probe.child.exitCode === null) await probe.kill();
      await registry?.dispose();
      await rm(dir, { recursive: true, force: true });
    });

    it('serves a valid A2A v1.0 card whose bytes match the registered digest, with ETag and 304', async () => {
      const res = await fetch(`${ready.url}/.well-known/agent-card.json`);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      const digest = createHash('sha256').update(bytes).digest('base64url');
      const listed = (await instances(registry.url)).find((i) => i.instance_id === ready.instanceId);
      expect(listed?.card_sha256).toBe(digest);
      expect(ready.cardSha256).toBe(digest);
      const card = AgentCard.parse(JSON.parse(bytes.toString('utf8')));
      expect(card.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(['HTTP+JSON', 'JSONRPC']);
      expect(card.skills.map((s) => s.id)).toEqual(['echo']);
      expect(cardExtension(card)).toMatchObject({
        capability_ids: ['echo'],
        domain: 'testing',
        idempotent: true,
      });
      const etag = res.headers.get('etag');
      expect(etag).toBe(`"${digest}"`);
      const again = await fetch(`${ready.url}/.well-known/agent-card.json`, {
        headers: { 'if-none-match': etag! },
      });
      expect(again.status).toBe(304);
    });

    it('reports health with its instance id', async () => {
      const res = await fetch(`${ready.url}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', instance_id: ready.instanceId });
    });

    it('answers @a2a-js/sdk sendMessage with the completed task', async () => {
      const result = await client.sendMessage(message({ value: 'hello' }));
      expect('status' in result).toBe(true);
      const task = result as Awaited<ReturnType<Client['getTask']>>;
      expect(task.status?.state).toBe(3); // TASK_STATE_COMPLETED
      expect(output(task)?.echo).toBe('hello');
      const fetched = await client.getTask({ tenant: '', id: task.id });
      expect(fetched.status?.state).toBe(3);
    });

    it('streams: the ack (first task event) comes before the handler ends, the result at the terminal state', async () => {
      const started = performance.now();
      let ackAt = 0;
      const states: number[] = [];
      let last: ReturnType<typeof output>;
      for await (const event of client.sendMessageStream(message({ value: 42, sleep_ms: 800 }))) {
        if (ackAt === 0) ackAt = performance.now() - started;
        const payload = event.payload;
        if (payload?.$case === 'task') states.push(payload.value.status?.state ?? -1);
        if (payload?.$case === 'statusUpdate') states.push(payload.value.status?.state ?? -1);
        if (payload?.$case === 'artifactUpdate') {
          const part = payload.value.artifact?.parts[0]?.content;
          if (part?.$case === 'data') last = part.value as typeof last;
        }
      }
      const endedAt = performance.now() - started;
      expect(ackAt).toBeLessThan(600);
      expect(endedAt).toBeGreaterThanOrEqual(800);
      expect(states.at(-1)).toBe(3);
      expect(last?.echo).toBe(42);
    });

    it('answers a repeated request_id with the first task, without running the handler again', async () => {
      const id = randomUUID();
      const first = (await client.sendMessage(message({ value: 'once' }, id))) as Awaited<
        ReturnType<Client['getTask']>
      >;
      const second = (await client.sendMessage(message({ value: 'twice' }, id))) as Awaited<
        ReturnType<Client['getTask']>
      >;
      expect(second.id).toBe(first.id);
      expect(output(second)).toEqual(output(first));
      const later = (await client.sendMessage(message({}))) as Awaited<ReturnType<Client['getTask']>>;
      expect(output(later)!.calls).toBe(output(first)!.calls + 1);
    });

    it('cancels a running task', async () => {
      const stream = client.sendMessageStream(message({ sleep_ms: 3_000 }));
      const first = await stream.next();
      const taskId = first.value?.payload?.$case === 'task' ? first.value.payload.value.id : '';
      expect(taskId).not.toBe('');
      const cancelled = await client.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      expect(cancelled.status?.state).toBe(5); // TASK_STATE_CANCELED
      await stream.return(undefined);
    });

    it("fails a task that outlives the caller's deadline, with our code in the status metadata", async () => {
      const task = (await client.sendMessage(
        message({ sleep_ms: 1_500 }, randomUUID(), { deadline_ms: 300 }),
      )) as Awaited<ReturnType<Client['getTask']>>;
      expect(task.status?.state).toBe(4); // TASK_STATE_FAILED
      expect(task.status?.message?.metadata?.[REACH_EXTENSION]).toMatchObject({ code: 'TIMEOUT' });
    });

    it('fails a task whose handler refuses the input, with the code', async () => {
      const task = (await client.sendMessage(message({ fail_code: 'x' }))) as Awaited<
        ReturnType<Client['getTask']>
      >;
      expect(task.status?.state).toBe(4);
      expect(task.status?.message?.metadata?.[REACH_EXTENSION]).toMatchObject({ code: 'VALIDATION_FAILED' });
    });

    it('keeps heartbeating (seq rising, never suspect) while a CPU-bound handler runs for three intervals', async () => {
      const before = (await instances(registry.url)).find((i) => i.instance_id === ready.instanceId)!;
      const busy = client.sendMessage(message({ busy_ms: 3 * INTERVAL_MS + 500 }));
      const states = new Set<string>();
      const until = performance.now() + 3 * INTERVAL_MS + 500;
      while (performance.now() < until) {
        const view = (await instances(registry.url)).find((i) => i.instance_id === ready.instanceId);
        states.add(view?.state ?? 'missing');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await busy;
      const after = (await instances(registry.url)).find((i) => i.instance_id === ready.instanceId)!;
      expect([...states]).toEqual(['healthy']);
      expect(after.last_seq).toBeGreaterThanOrEqual(before.last_seq + 2);
    });

    it('exits at once naming the field when its declaration is bad', async () => {
      const file = join(dir, 'bad.declaration.json');
      await writeFile(
        file,
        JSON.stringify({
          agent_name: 'conformance-probe',
          domain: 'testing',
          capabilities: { echo: { priority: 1 } },
        }),
      );
      const bad = sdk.spawnProbe(registry.url, { PROBE_DECLARATION: file });
      const exit = await bad.exited;
      expect(exit.code).toBe(1);
      expect(bad.stderr.tail()).toMatch(/INVALID_DECLARATION.*capabilities\.echo\.priority/);
    });

    it('waits for a registry that is down (backing off), then registers when it comes up', async () => {
      const port = await freePort();
      const late = sdk.spawnProbe(`http://127.0.0.1:${port}`);
      const dataDir = await mkdtemp(join(tmpdir(), 'reach-conformance-late-'));
      let lateRegistry: RegistryProcess | undefined;
      try {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        expect(late.child.exitCode).toBeNull();
        expect(late.stdout.lines.some((l) => l.startsWith('{"ready"'))).toBe(false);
        lateRegistry = await RegistryProcess.start({
          port,
          config: { storage: { type: 'embedded', path: dataDir } },
        });
        const { instanceId } = await late.ready(20_000);
        expect((await instances(lateRegistry.url)).map((i) => i.instance_id)).toContain(instanceId);
      } finally {
        await late.kill();
        await lateRegistry?.dispose();
        await rm(dataDir, { recursive: true, force: true });
      }
    });

    it('deregisters on SIGTERM: the registry forgets it at once', async () => {
      const other = sdk.spawnProbe(registry.url);
      const { instanceId } = await other.ready();
      expect((await instances(registry.url)).some((i) => i.instance_id === instanceId)).toBe(true);
      const exit = await other.term();
      expect(exit.code).toBe(0);
      expect((await instances(registry.url)).some((i) => i.instance_id === instanceId)).toBe(false);
    });

    it('after SIGKILL the registry drops it within the lease', async () => {
      const other = sdk.spawnProbe(registry.url);
      const { instanceId } = await other.ready();
      await other.kill();
      await pollUntil(
        async () =>
          (await instances(registry.url)).some((i) => i.instance_id === instanceId) ? undefined : true,
        3 * INTERVAL_MS + 3_000,
        () => `${instanceId} still listed after its lease`,
      );
    });
  });
}
