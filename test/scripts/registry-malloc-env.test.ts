import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterPorts, clusterShape } from '../../scripts/cluster/cluster-shape.js';
import { REGISTRY_MALLOC_ENV } from '../../scripts/registry-malloc-env.js';
import { containersOf, find, loadManifests, podEnv } from '../deploy/k8s-checks.js';
import { REPO_ROOT } from '../harness/registry-process.js';

/** The `ENV k=v …` settings of one Dockerfile stage (up to the next FROM). */
function stageEnv(dockerfile: string, stage: string): Record<string, string> {
  const lines = dockerfile.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${stage}\\s*$`, 'i').test(line));
  if (start < 0) throw new Error(`no stage ${stage}`);
  const env: Record<string, string> = {};
  for (const line of lines.slice(start + 1)) {
    if (/^FROM\s/i.test(line)) break;
    const match = /^ENV\s+(.*)$/i.exec(line);
    if (match === null) continue;
    for (const pair of match[1]!.trim().split(/\s+/)) {
      const [key, value = ''] = pair.split('=');
      env[key!] = value;
    }
  }
  return env;
}

// glibc reads these once at process start, so every way the registry is launched must set them itself.
describe('the registry process gets REGISTRY_MALLOC_ENV wherever it is launched', () => {
  it('sets a bounded arena count and leaves the trim threshold (and with it the dynamic mmap threshold) to glibc', () => {
    expect(Number(REGISTRY_MALLOC_ENV.MALLOC_ARENA_MAX)).toBeGreaterThan(0);
    expect(REGISTRY_MALLOC_ENV).not.toHaveProperty('MALLOC_TRIM_THRESHOLD_');
  });

  it("in the Dockerfile's registry image, and not in the other images", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(stageEnv(dockerfile, 'registry')).toMatchObject(REGISTRY_MALLOC_ENV);
    for (const other of ['runtime', 'orchestrator', 'console'])
      for (const key of Object.keys(REGISTRY_MALLOC_ENV))
        expect(stageEnv(dockerfile, other), `${other} stage`).not.toHaveProperty(key);
  });

  it("in the Kubernetes registry Deployment's container env", () => {
    const objects = loadManifests(join(REPO_ROOT, 'deploy/k8s'));
    const registry = find(objects, 'Deployment', 'registry')!;
    expect(podEnv(objects, registry, containersOf(registry)[0]!)).toMatchObject(REGISTRY_MALLOC_ENV);
  });

  it("in the cluster shape's registry replicas (npm start --cluster), not its other processes", () => {
    const { processes } = clusterShape({
      ports: clusterPorts(null),
      data: '/tmp/unused',
      databaseUrl: 'postgres://unused',
    });
    const registries = processes.filter((p) => p.role === 'registry');
    expect(registries.length).toBe(2);
    for (const p of registries) expect(p.env).toMatchObject(REGISTRY_MALLOC_ENV);
    for (const p of processes.filter((q) => q.role !== 'registry'))
      expect(p.env).not.toHaveProperty('MALLOC_ARENA_MAX');
  });
});
