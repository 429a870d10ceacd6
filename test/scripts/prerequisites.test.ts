import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findTool, readSystemPackages } from '../../scripts/prerequisites.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PACKAGES = readSystemPackages(join(ROOT, 'scripts/system-packages.txt'));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the README's test command with a PATH holding only the given commands (no apt-get: it cannot install). */
function runTestCommand(commands: readonly string[]) {
  const bins = mkdtempSync(join(tmpdir(), 'reach-prereq-'));
  dirs.push(bins);
  for (const command of [...commands, 'sh']) {
    const found = findTool(command, process.env.PATH ?? '');
    if (found !== undefined) symlinkSync(found, join(bins, command));
  }
  return spawnSync(process.execPath, ['scripts/bootstrap.mjs', 'test'], {
    cwd: ROOT,
    env: { PATH: bins, HOME: process.env.HOME ?? '/root' },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('the test command on a machine that lacks a tool', () => {
  it('stops before any test starts, naming the missing tool, its package and the command to install it', () => {
    expect(PACKAGES.map((p) => p.command)).toContain('faketime');
    const result = runTestCommand(PACKAGES.map((p) => p.command).filter((c) => c !== 'faketime'));
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/faketime\s+\(Debian package faketime: wall-clock tests/);
    expect(result.stderr).toContain(
      'sudo apt-get update && sudo apt-get install -y --no-install-recommends faketime',
    );
    // Only the missing package is named; vitest never started.
    expect(result.stderr).not.toContain('etcd-server');
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/RUN|Test Files/);
  });

  it('names every missing tool in one message', () => {
    const result = runTestCommand([]);
    expect(result.status).toBe(1);
    // Daemons in sbin (knotd) are found even off the PATH; every other tool is named, with its package.
    const missing = PACKAGES.filter((p) => findTool(p.command, '') === undefined);
    expect(missing.length).toBeGreaterThan(5);
    for (const p of missing)
      expect(result.stderr).toMatch(new RegExp(`^  ${p.command} +\\(Debian package ${p.pkg}:`, 'm'));
    expect(result.stderr).toContain(
      `install -y --no-install-recommends ${missing.map((p) => p.pkg).join(' ')}`,
    );
  });
});
