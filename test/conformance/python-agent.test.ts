import { join } from 'node:path';
import { AgentProcess } from '../harness/agent-process.js';
import { REPO_ROOT } from '../harness/registry-process.js';
import { agentConformanceSuite } from './agent-conformance.suite.js';

const PROBE = join(REPO_ROOT, 'test/conformance/fixtures/probe_agent.py');

agentConformanceSuite({
  name: 'Python SDK (apps/agent-sdk-python)',
  spawnProbe: (registryUrl, env) =>
    AgentProcess.spawn({ script: PROBE, command: ['python3', PROBE], registryUrl, ...(env ? { env } : {}) }),
});
