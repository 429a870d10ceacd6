import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCard, Role, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { cardExtension, AgentCard as ReachCard } from '@agent-reach/sdk/protocol';
import { AgentRuntime, silentLogger } from '@agent-reach/sdk/runtime';
import { parseSvcbZoneLine, readAgentCard } from '@agent-reach/sdk/svcb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess, SAMPLE_AGENTS } from '../harness/agent-process.js';
import { RegistryProcess } from '../harness/registry-process.js';
import { CATALOG_AGENT_KEYS, type CatalogAgent, startCatalogAgents } from '../orchestrator/catalog-agents.js';

// The outside peer: @a2a-js/sdk's own client (A2A v1.0, no legacy mode) against every demo SDK agent.

let dir: string;
let registry: RegistryProcess;
let agents: CatalogAgent[] = [];
let samples: Array<{ name: string; process: AgentProcess }> = [];

const factory = (binding: 'JSONRPC' | 'HTTP+JSON') =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }),
  );

function message(text: string) {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text' as const, value: text },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

/** The card URL the zone's SVCB records publish for an instance (the DNS-AID `cap` key). */
async function cardUrlFromDns(instanceId: string): Promise<{ url: string; sha256: string }> {
  const zone = await (await fetch(`${registry.url}/v1/zone`)).text();
  for (const line of zone.split('\n')) {
    if (!/\sSVCB\s/.test(line) || !line.includes(`${instanceId}.`)) continue;
    const record = parseSvcbZoneLine(line);
    const card = readAgentCard(record.record.params);
    if (card.ok && card.value.url && card.value.sha256)
      return { url: card.value.url, sha256: card.value.sha256 };
  }
  throw new Error(`no SVCB with a card for ${instanceId} in the zone:\n${zone}`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reach-a2a-'));
  registry = await RegistryProcess.start({
    config: { storage: { type: 'embedded', path: join(dir, 'registry') } },
  });
  agents = await startCatalogAgents(
    registry.url,
    CATALOG_AGENT_KEYS.map((key) => ({ key })),
  );
  samples = Object.entries(SAMPLE_AGENTS).map(([name, script]) => ({
    name,
    process: AgentProcess.spawn({ script, registryUrl: registry.url }),
  }));
  await Promise.all(samples.map((s) => s.process.registered()));
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.process.term().catch(() => undefined)));
  await Promise.all(samples.map((s) => s.process.term().catch(() => undefined)));
  await registry?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('@a2a-js/sdk client against every SDK agent', () => {
  it('resolves each card from the SVCB cap key, finds nothing missing, and gets a completed task', async () => {
    const instances = [
      ...agents.map((a) => ({
        name: a.key,
        id: a.ready.instanceId,
        task: `Write two lines about ${a.key}`,
      })),
    ];
    for (const instance of instances) {
      const { url, sha256 } = await cardUrlFromDns(instance.id);
      const res = await fetch(url);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(createDigest(bytes), `${instance.name}: cap-sha256 matches the served bytes`).toBe(sha256);
      expect(res.headers.get('etag')).toBe(`"${sha256}"`);
      expect(res.headers.get('cache-control')).toContain('max-age');
      const json = JSON.parse(bytes.toString('utf8'));
      // The SDK's own codec reads every field we rely on.
      const card = AgentCard.fromJSON(json);
      expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toEqual([
        ['JSONRPC', '1.0'],
        ['HTTP+JSON', '1.0'],
      ]);
      expect(card.capabilities?.streaming).toBe(true);
      expect(card.skills.length).toBeGreaterThan(0);
      for (const skill of card.skills) {
        expect(skill.id).toMatch(/^[a-z][a-z0-9_]{0,39}$/);
        expect(skill.description.length).toBeGreaterThan(0);
        expect(skill.tags.length).toBeGreaterThan(0);
        expect(skill.examples.length, `${instance.name}/${skill.id} has examples`).toBeGreaterThan(0);
      }
      const ext = cardExtension(ReachCard.parse(json));
      expect(ext?.capability_ids.length).toBeGreaterThan(0);
      expect(ext?.declaration_version).toBe(card.version);

      for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
        const client = await factory(binding).createFromUrl(url, '');
        const result = await client.sendMessage(message(instance.task));
        expect('id' in result && 'status' in result, `${instance.name} over ${binding} answers a task`).toBe(
          true,
        );
        const task = result as Task;
        expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
        const part = task.artifacts[0]?.parts[0]?.content;
        expect(part === undefined ? '' : JSON.stringify(part.value)).not.toBe('');
        const fetched = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      }
    }
  });

  it('streams a task from WORKING to COMPLETED and cancels a running one, on both bindings', async () => {
    const writer = agents.find((a) => a.key === 'writing');
    if (!writer) throw new Error('no writing agent');
    const { url } = await cardUrlFromDns(writer.ready.instanceId);
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      const client: Client = await factory(binding).createFromUrl(url, '');
      const states: TaskState[] = [];
      let output = false;
      for await (const event of client.sendMessageStream(message('Write a short note about DNS'))) {
        states.push(stateOf(event));
        if (event.payload?.$case === 'artifactUpdate') output = true;
      }
      expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
      expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(output).toBe(true);
    }
    // An SDK agent whose handler runs until it is cancelled: CancelTask must stop it.
    const aborted: string[] = [];
    const slow = new AgentRuntime({
      agentName: 'slow-worker',
      controlPlaneUrl: registry.url,
      logger: silentLogger,
      declaration: {
        agent_name: 'slow-worker',
        domain: 'a2a_test',
        capabilities: {
          slow_work: { input: ['text'], output: ['text'], examples: ['work until cancelled'] },
        },
      },
      handler: (ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            aborted.push(ctx.requestId);
            reject(ctx.signal.reason);
          }),
        ),
    });
    const started = await slow.start();
    try {
      const card = await cardUrlFromDns(started.instanceId);
      for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
        const client = await factory(binding).createFromUrl(card.url, '');
        const request = {
          ...message('work'),
          configuration: {
            acceptedOutputModes: [],
            taskPushNotificationConfig: undefined,
            returnImmediately: true,
          },
        };
        const task = (await client.sendMessage(request)) as Task;
        expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
        const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        expect(aborted).toContain(request.message.messageId);
        const again = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
        expect(again.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
        await expect(client.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow();
      }
    } finally {
      await slow.stop();
    }
  });
});

function stateOf(event: StreamResponse): TaskState {
  const p = event.payload;
  if (p?.$case === 'task') return p.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (p?.$case === 'statusUpdate') return p.value.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  return TaskState.TASK_STATE_UNSPECIFIED;
}

function createDigest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('base64url');
}
