import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { declarationJsonSchema } from '@agent-reach/sdk/protocol';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../harness/registry-process.js';

const PACKAGE = join(REPO_ROOT, 'apps/agent-sdk-python');
const run = promisify(execFile);

describe('the Python SDK package', () => {
  it("validates declarations against the TypeScript SDK's published schema (the copy it ships is the same)", () => {
    const shipped = JSON.parse(
      readFileSync(join(PACKAGE, 'src/agent_reach/declaration.schema.json'), 'utf8'),
    );
    const published = JSON.parse(
      readFileSync(join(REPO_ROOT, 'apps/agent-sdk/declaration.schema.json'), 'utf8'),
    );
    expect(shipped).toEqual(declarationJsonSchema());
    expect(shipped).toEqual(published);
  });

  it('passes its own unit tests (python3 -m unittest, standard library only)', async () => {
    const { stderr } = await run('python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', '.'], {
      cwd: PACKAGE,
      env: { ...process.env, PYTHONPATH: join(PACKAGE, 'src'), PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 60_000,
    });
    expect(stderr).toMatch(/Ran \d+ tests/);
    expect(stderr.trimEnd()).toMatch(/OK$/);
  });
});
