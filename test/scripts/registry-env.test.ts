import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clusterPorts, clusterShape } from '../../scripts/cluster/cluster-shape.js';
import { REGISTRY_ENV, registryEnv } from '../../scripts/registry-env.js';
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
      const at = pair.indexOf('=');
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

// glibc and Node read these once at process start, so every way the registry is launched must set them itself.
describe('the registry process gets REGISTRY_ENV wherever it is launched', () => {
  it('sets a bounded arena count, one V8 background thread, and leaves the trim threshold to glibc', () => {
    expect(Number(REGISTRY_ENV.MALLOC_ARENA_MAX)).toBeGreaterThan(0);
    expect(REGISTRY_ENV.NODE_OPTIONS).toBe('--v8-pool-size=1');
    expect(REGISTRY_ENV).not.toHaveProperty('MALLOC_TRIM_THRESHOLD_');
  });

  it("keeps what the launcher's environment already sets: its values win, its NODE_OPTIONS come after ours", () => {
    expect(registryEnv({})).toEqual(REGISTRY_ENV);
    expect(registryEnv({ MALLOC_ARENA_MAX: '8', NODE_OPTIONS: ' --inspect ' })).toEqual({
      MALLOC_ARENA_MAX: '8',
      NODE_OPTIONS: '--v8-pool-size=1 --inspect',
    });
  });

  it('gives node one V8 background thread, unless a later flag asks for more', () => {
    const threads = (env: NodeJS.ProcessEnv, flags: string[] = []) => {
      const out = execFileSync(
        process.execPath,
        [...flags, '-e', "console.log(require('node:fs').readdirSync('/proc/self/task').length)"],
        { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' },
      );
      return Number(out.trim());
    };
    const ours = threads(registryEnv({}));
    const nodeDefault = threads({});
    // Node's default pool is four threads: ours has three fewer.
    expect(nodeDefault - ours).toBe(3);
    expect(threads(registryEnv({ NODE_OPTIONS: '--v8-pool-size=4' }))).toBe(nodeDefault);
    expect(threads(registryEnv({}), ['--v8-pool-size=4'])).toBe(nodeDefault);
  });

  it("in the Dockerfile's registry image, and not in the other images", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(stageEnv(dockerfile, 'registry')).toMatchObject(REGISTRY_ENV);
    for (const other of ['runtime', 'orchestrator', 'console'])
      for (const key of Object.keys(REGISTRY_ENV))
        expect(stageEnv(dockerfile, other), `${other} stage`).not.toHaveProperty(key);
  });

  it("in the Kubernetes registry Deployment's container env", () => {
    const objects = loadManifests(join(REPO_ROOT, 'deploy/k8s'));
    const registry = find(objects, 'Deployment', 'registry')!;
    expect(podEnv(objects, registry, containersOf(registry)[0]!)).toMatchObject(REGISTRY_ENV);
  });

  it("in the cluster shape's registry replicas (npm start --cluster), not its other processes", () => {
    const { processes } = clusterShape({
      ports: clusterPorts(null),
      data: '/tmp/unused',
      databaseUrl: 'postgres://unused',
    });
    const registries = processes.filter((p) => p.role === 'registry');
    expect(registries.length).toBe(2);
    for (const p of registries) expect(p.env).toMatchObject(registryEnv(process.env));
    for (const p of processes.filter((q) => q.role !== 'registry')) {
      expect(p.env).not.toHaveProperty('MALLOC_ARENA_MAX');
      expect(p.env).not.toHaveProperty('NODE_OPTIONS');
    }
  });
});
