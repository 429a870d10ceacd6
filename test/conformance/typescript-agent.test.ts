import { join } from 'node:path';
import { AgentProcess } from '../harness/agent-process.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { agentConformanceSuite } from './agent-conformance.suite.js';

const PROBE = join(REPO_ROOT, 'test/conformance/fixtures/probe-agent.ts');

agentConformanceSuite({
  name: 'TypeScript SDK (apps/agent-sdk)',
  spawnProbe: (registryUrl, env) =>
    AgentProcess.spawn({ script: PROBE, registryUrl, ...(env ? { env } : {}) }),
});
