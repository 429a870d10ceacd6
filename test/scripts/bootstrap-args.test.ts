import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

// npm strips the `--` of `npm start -- --port-base N`; pnpm passes it to the script as an argument.
it.each([
  ['after a `--` (pnpm start -- --help)', ['--', '--help']],
  ['without one (npm start -- --help)', ['--help']],
])('hands start its options %s', (_how, args) => {
  const run = spawnSync(process.execPath, ['scripts/bootstrap.mjs', 'start', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.stderr + run.stdout).toContain('usage: pnpm start [options]');
  expect(run.stderr + run.stdout).not.toContain('Unexpected argument');
  expect(run.status).toBe(0);
});
