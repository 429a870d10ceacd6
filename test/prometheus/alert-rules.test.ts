import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../harness/debian-tools.js';
import { REPO_ROOT, RegistryProcess } from '../harness/registry-process.js';

const RULES_DIR = join(REPO_ROOT, 'deploy/prometheus');

/** Runs promtool (Prometheus's own rule loader and evaluator); resolves with its exit code and output. */
function promtool(args: string[], input?: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(requireTool('promtool'), args, { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

describe('deploy/prometheus alerting rules', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-rules-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('load in Prometheus’s rule parser', async () => {
    const r = await promtool(['check', 'rules', join(RULES_DIR, 'reach-alerts.yml')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('SUCCESS: 8 rules found');
  });

  it('fire on the synthetic series and stay quiet on healthy ones (promtool test rules)', async () => {
    const r = await promtool(['test', 'rules', join(RULES_DIR, 'reach-alerts.test.yml')]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('SUCCESS');
  });

  it('have tests that catch a changed threshold', async () => {
    // The same tests against rules whose hit-rate threshold was lowered to 50 %: they must fail.
    const rules = await readFile(join(RULES_DIR, 'reach-alerts.yml'), 'utf8');
    const lowered = rules.replace(
      'reach:route_hit_rate:ratio5m < 0.70',
      'reach:route_hit_rate:ratio5m < 0.50',
    );
    expect(lowered).not.toBe(rules);
    await writeFile(join(dir, 'reach-alerts.yml'), lowered);
    await copyFile(join(RULES_DIR, 'reach-alerts.test.yml'), join(dir, 'reach-alerts.test.yml'));
    const r = await promtool(['test', 'rules', join(dir, 'reach-alerts.test.yml')]);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain('alertname: ReachRouteHitRateLow');
  });
});

describe('the metrics the rules read', () => {
  let registry: RegistryProcess;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-rules-registry-'));
    registry = await RegistryProcess.start({ config: { storage: { type: 'embedded', path: dir } } });
  }, 60_000);
  afterAll(() => registry?.dispose(), 30_000);

  it('are what a registry exposes, in a format promtool accepts', async () => {
    const text = await (await fetch(`${registry.url}/metrics`)).text();
    const lint = await promtool(['check', 'metrics'], text);
    // `check metrics` lints names and help texts; it exits non-zero only on parse errors or lint problems.
    expect(lint.out).not.toMatch(/error while linting|parse error/i);
    const rules = await readFile(join(RULES_DIR, 'reach-alerts.yml'), 'utf8');
    const used = new Set([...rules.matchAll(/\b(reach_[a-z_]+)\b/g)].map((m) => m[1]!));
    expect([...used].sort()).toEqual([
      'reach_calls_total',
      'reach_registry_leader',
      'reach_registry_storm_active',
    ]);
    for (const name of used) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} (counter|gauge)$`, 'm'));
    expect(text).toMatch(/^reach_registry_leader 1$/m);
  });
});
