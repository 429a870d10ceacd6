import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_AGENTS_DIR, initAgent } from '../../apps/console/src/cli/init-agent.js';
import { AgentProcess } from '../harness/agent-process.js';
import { RegistryProcess } from '../harness/registry-process.js';

describe('reach init agent writes a skeleton that runs', () => {
  const name = `init-e2e-${randomBytes(3).toString('hex')}`;
  let registry: RegistryProcess;
  let dataDir: string;
  let agent: AgentProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'reach-init-e2e-'));
    registry = await RegistryProcess.start({
      config: { storage: { type: 'embedded', path: join(dataDir, 'registry') } },
    });
  }, 60_000);
  afterAll(async () => {
    await agent?.term().catch(() => undefined);
    await registry?.dispose();
    await rm(join(DEFAULT_AGENTS_DIR, name), { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('registers with its capability and serves a card describing it', async () => {
    const { files } = await initAgent({ name, capability: 'haiku_write', description: 'Writes haiku.' });
    agent = AgentProcess.spawn({ script: files[0]!, registryUrl: registry.url });
    const { ready, view } = await agent.registered();
    expect(view.capabilities).toEqual(['haiku_write']);
    const card = (await (await fetch(`${ready.url}/.well-known/agent-card.json`)).json()) as {
      skills: Array<{ id: string; description: string; tags: string[] }>;
    };
    expect(card.skills[0]).toMatchObject({ id: 'haiku_write', description: 'Writes haiku.' });
    expect(card.skills[0]!.tags).toContain('haiku write');
  }, 90_000);
});
