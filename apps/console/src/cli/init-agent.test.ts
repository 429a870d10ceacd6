import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadDeclaration } from '@agent-reach/sdk/runtime';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cli } from './cli.js';
import { initAgent } from './init-agent.js';

describe('reach init agent', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'reach-init-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('writes main.ts and a valid declaration that points at the JSON Schema', async () => {
    const { files } = await initAgent({ name: 'word-counter', dir, description: 'Counts words.' });
    expect(files).toEqual([join(dir, 'word-counter/main.ts'), join(dir, 'word-counter/declaration.json')]);
    const declaration = loadDeclaration(files[1]!);
    expect(declaration.agent_name).toBe('word-counter');
    expect(declaration.capabilities.word_counter).toMatchObject({
      description: 'Counts words.',
      tags: ['word counter'],
    });
    const raw = JSON.parse(readFileSync(files[1]!, 'utf8')) as { $schema: string };
    expect(existsSync(resolve(dir, 'word-counter', raw.$schema))).toBe(true);
    const main = readFileSync(files[0]!, 'utf8');
    expect(main).toContain("agentName: 'word-counter'");
    expect(main).toContain("from '@agent-reach/sdk/runtime'");
  });

  it('refuses bad names, bad capability ids and existing files (unless --force), through the CLI', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const run = (args: string[]) =>
      cli(args, {}, { out: (t) => out.push(t), err: (t) => err.push(t), now: () => 0 });
    expect(await run(['init', 'agent', 'Bad_Name', '--dir', dir])).toBe(2);
    expect(err.join('\n')).toMatch(/DNS host label/);
    expect(await run(['init', 'agent', 'ok-agent', '--capability', 'Bad-Id', '--dir', dir])).toBe(2);
    expect(await run(['init', 'service', 'ok-agent', '--dir', dir])).toBe(2);
    expect(await run(['init', 'agent', 'ok-agent', '--dir', dir])).toBe(0);
    expect(out.join('\n')).toContain(`wrote ${join(dir, 'ok-agent/main.ts')}`);
    expect(await run(['init', 'agent', 'ok-agent', '--dir', dir])).toBe(2);
    expect(err.join('\n')).toMatch(/exists; pass --force/);
    expect(await run(['init', 'agent', 'ok-agent', '--dir', dir, '--force'])).toBe(0);
  });
});
