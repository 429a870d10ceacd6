import { DEFAULT_CATALOG } from '@agent-reach/sdk/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_AGENTS, resolveCatalogAgent } from '../../apps/agent-sdk/examples/catalog-agents/agents.js';
import { modelFromEnv, offlineModel } from '../../apps/agent-sdk/examples/catalog-agents/model.js';
import { offlineAnswer } from '../../apps/agent-sdk/examples/catalog-agents/offline-templates.js';
import { readTaskInput } from '../../apps/agent-sdk/examples/catalog-agents/task-input.js';
import { FakeModelServer } from './fake-model-server.js';

const context = {
  text: '### n1 · research\n需要查证：预算与场地',
  items: [{ node_id: 'n1', capability: 'research', text: '需要查证：预算与场地\n第二行' }],
};

describe('catalog demo agents', () => {
  it('cover all seven capabilities, the verifier serving two', () => {
    expect(CATALOG_AGENTS.flatMap((a) => a.serves).sort()).toEqual([...DEFAULT_CATALOG].sort());
    expect(resolveCatalogAgent('validation').agentName).toBe('verifier-agent');
    expect(resolveCatalogAgent('writer').agentName).toBe('writer-agent');
    expect(() => resolveCatalogAgent('cooking')).toThrow(/unknown catalog agent/);
  });

  it('answer offline, deterministically, in the task language, from the task and the context', () => {
    const zh = readTaskInput(
      { task: '设计一份生日派对策划，包括预算和场地', purpose: '写出方案正文' },
      context,
    );
    for (const cap of DEFAULT_CATALOG) {
      const text = offlineAnswer(cap, zh);
      expect(text, cap).toBe(offlineAnswer(cap, zh));
      expect(text, cap).toContain('离线演示模型');
      expect(text, cap).not.toContain('Offline demo model');
    }
    expect(offlineAnswer('writing', zh)).toContain('### 2. 包括预算');
    expect(offlineAnswer('synthesis', zh)).toContain('### n1 · research');
    expect(offlineAnswer('security_review', zh)).toContain('场地安全');
    const en = readTaskInput('Design a logout API endpoint and test it', undefined);
    expect(offlineAnswer('implementation', en)).toContain('```ts');
    expect(offlineAnswer('validation', en)).toContain('Check 1: "Design a logout API endpoint"');
    expect(offlineAnswer('research', en)).toContain('Offline demo model');
  });

  it('refuse input without a task', () => {
    expect(() => readTaskInput({ purpose: 'x' }, undefined)).toThrow(/input.task/);
  });

  describe('with a provider configured', () => {
    const server = new FakeModelServer((task) => `model answer for: ${task.split('\n')[0]}`);
    beforeAll(() => server.start());
    afterAll(() => server.stop());

    it('answers through the openai client', async () => {
      expect(modelFromEnv({})).toBe(offlineModel);
      const model = modelFromEnv({
        AGENT_LLM_BASE_URL: server.baseUrl,
        AGENT_LLM_MODEL: 'demo-model',
        AGENT_LLM_API_KEY: 'k',
      });
      expect(model.name).toBe('demo-model');
      const text = await model.answer(
        'writing',
        readTaskInput({ task: '写一份公告' }, context),
        new AbortController().signal,
      );
      expect(text).toBe('"model answer for: Task: 写一份公告"');
      expect(server.tasks.at(-1)).toContain('Context:\n### n1 · research');
    });
  });
});
