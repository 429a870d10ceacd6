import { join } from 'node:path';
import { ReachClient } from '@agent-reach/sdk/client';
import { Declaration } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentProcess } from '../harness/agent-process.js';
import { pollUntil } from '../harness/child-output.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { type System, startSystem } from './system.js';

const WORD_COUNTER = join(REPO_ROOT, 'apps/agent-sdk/examples/word-counter/main.ts');
const ZH = '统计这段文字有多少个字：今天天气很好';
const EN = 'How many words are in this paragraph: the quick brown fox';

describe('open capabilities: a new agent is planned, routed and shown without a config edit', () => {
  let system: System;
  let counter: AgentProcess | undefined;

  beforeAll(async () => {
    // Two writers, so a synthesize call over writing has two answers to merge.
    system = await startSystem({ agents: [{ key: 'synthesis' }, { key: 'writing' }, { key: 'writing' }] });
  }, 120_000);
  afterAll(async () => {
    await counter?.term().catch(() => undefined);
    await system?.stop();
  });

  it('plans a capability registered at runtime, in Chinese and English, and records the call', async () => {
    const before = await system.api.discovery();
    expect(before.capabilities.word_count).toBeUndefined();
    counter = AgentProcess.spawn({
      script: WORD_COUNTER,
      registryUrl: system.registry.url,
      registryToken: system.token,
    });
    await counter.registered();

    // One discovery pass after the registration shows it, described by its card.
    const view = await system.api.discovery();
    expect(view.index?.capabilities).toContain('word_count');
    expect(view.capabilities.word_count).toMatchObject({
      available: true,
      builtin: false,
      in_index: true,
      providers: ['word-counter'],
      described_by: 'card',
      description: 'Counts the words of a text (Chinese: characters) and its characters.',
    });
    expect(view.capabilities.word_count!.tags).toContain('字数');

    for (const [task, words] of [
      [ZH, 6],
      [EN, 4],
    ] as const) {
      const run = await system.api.run(task);
      expect(run.status, run.summary).toBe('ok');
      const trace = await system.api.trace(run.trace_id);
      const node = trace.nodes.find((n) => n.capability === 'word_count');
      expect(node, JSON.stringify(trace.plan)).toMatchObject({ status: 'succeeded', agent: 'word-counter' });
      expect(node!.output).toContain(`${words} words`);
      expect(trace.nodes.map((n) => n.capability)).not.toContain('research');
      const attempt = trace.events.find(
        (e) => e.type === 'node_succeeded' && e.data.node_id === node!.node_id,
      );
      expect(attempt).toBeDefined();
    }
  }, 120_000);

  it('kills the agent: the next run records capability_unavailable, ends degraded and says what is missing', async () => {
    await counter!.term();
    counter = undefined;
    // A run may reuse DNS answers for a few seconds (dnsReuseMs); the next runs see the agent gone.
    const { run, trace } = await pollUntil(
      async () => {
        const r = await system.api.run(ZH);
        const t = await system.api.trace(r.trace_id);
        return t.events.some((e) => e.type === 'capability_unavailable') ? { run: r, trace: t } : undefined;
      },
      20_000,
      () => 'no run recorded capability_unavailable',
      500,
    );
    expect(run.status, run.summary).toBe('degraded');
    expect(run.summary).toMatch(/Missing: no live agent answered for word_count \(n1: \w+\)/);
    expect(run.summary).toContain('缺少能力');
    expect(trace.nodes.find((n) => n.capability === 'word_count')?.status).toBe('unavailable');
    expect(
      trace.events.some((e) => e.type === 'capability_unavailable' && e.data.capability === 'word_count'),
    ).toBe(true);
    // The console's view still shows what the capability was, and that it is gone.
    expect((await system.api.discovery()).capabilities.word_count).toMatchObject({
      in_index: false,
      available: false,
      described_by: 'card',
    });
  }, 60_000);

  it('synthesize with the default merge works with the shipped synthesizer', async () => {
    const client = new ReachClient({ registryUrl: system.registry.url });
    try {
      const result = await client.reach({
        need: { operation: 'writing' },
        input: { task: 'Write a short welcome note' },
        mode: 'synthesize',
        k: 2,
      });
      expect(result.ok, result.ok ? '' : `${result.error.code}: ${result.error.message}`).toBe(true);
      if (!result.ok) return;
      expect(result.value.results).toHaveLength(2);
      const text = (result.value.output as { text: string }).text;
      expect(text).toContain('Merged the output of 2 upstream steps');
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a registration pointing at another agent's host:port with a wrong card digest only hurts itself", async () => {
    const writer = system.agents.find((a) => a.key === 'writing')!;
    const url = new URL(writer.ready.url);
    const decl = Declaration.parse({
      agent_name: 'impostor',
      domain: 'catalog_demo',
      capabilities: { writing: { serves: ['writing'] } },
      substitutable: true,
    });
    const endpoint = {
      host: url.hostname,
      port: Number(url.port),
      scheme: 'http' as const,
      alpn: ['http/1.1'],
    };
    const res = await fetch(`${system.registry.url}/v1/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.token}` },
      body: JSON.stringify({ declaration: decl, endpoint, card_sha256: `${'X'.repeat(42)}A` }),
    });
    expect(res.status).toBe(201);
    // The 201 precedes the DNS answer by the registration → answer lag (a few ms; more on a loaded
    // machine): wait until discovery sees the impostor, then every view must keep it out.
    let last = '';
    await pollUntil(
      async () => {
        const view = await system.api.discovery();
        last = JSON.stringify(view.capabilities.writing?.failed ?? []);
        return view.capabilities.writing?.failed.some((f) => f.reason === 'card_sha_mismatch')
          ? true
          : undefined;
      },
      10_000,
      () => `discovery never showed the impostor's card_sha_mismatch; writing.failed: ${last}`,
    );
    for (let i = 0; i < 3; i++) {
      const view = await system.api.discovery();
      const writing = view.capabilities.writing!;
      expect(writing.available).toBe(true);
      expect(writing.candidates.map((c) => c.agent_name).sort()).toEqual(['writer-agent', 'writer-agent']);
      expect(writing.failed.map((f) => f.reason)).toContain('card_sha_mismatch');
    }
  }, 60_000);
});
