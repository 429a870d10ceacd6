import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isReachError, type ReachError } from '../protocol/index.js';
import { loadDeclaration } from './declaration-file.js';

const dir = mkdtempSync(join(tmpdir(), 'reach-decl-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const good = {
  agent_name: 'summarizer-v2',
  domain: 'text_processing',
  capabilities: { summarize: { input: ['text'], output: ['summary'], constraints: { max_tokens: 5000 } } },
  priority: 80,
  idempotent: true,
};

function failure(run: () => unknown): ReachError {
  try {
    run();
  } catch (error) {
    if (isReachError(error)) return error;
    throw error;
  }
  throw new Error('expected a ReachError');
}

describe('loadDeclaration', () => {
  it('loads a JSON file and a YAML file to the same declaration', () => {
    const fromJson = loadDeclaration(file('a.json', JSON.stringify(good)), 'summarizer-v2');
    const yaml =
      'agent_name: summarizer-v2\ndomain: text_processing\ncapabilities:\n  summarize:\n    input: [text]\n    output: [summary]\n    constraints: { max_tokens: 5000 }\npriority: 80\nidempotent: true\n';
    expect(loadDeclaration(file('a.yaml', yaml))).toEqual(fromJson);
    expect(fromJson.version).toBe('1');
  });

  it('names the nested field that is wrong', () => {
    const bad = structuredClone(good) as {
      capabilities: { summarize: { constraints: Record<string, unknown> } };
    };
    bad.capabilities.summarize.constraints.max_tokens = -3;
    const error = failure(() => loadDeclaration(file('b.json', JSON.stringify(bad))));
    expect(error.code).toBe('INVALID_DECLARATION');
    expect(error.data?.field).toBe('capabilities.summarize.constraints.max_tokens');
    expect(error.message).toContain('capabilities.summarize.constraints.max_tokens');
    expect(error.message).toContain('b.json');
  });

  it('names an unknown key and a missing one', () => {
    const typo = failure(() => loadDeclaration({ ...good, priorty: 3 } as never));
    expect(typo.data?.field).toBe('priorty');
    const { domain: _domain, ...missing } = good;
    expect(failure(() => loadDeclaration(missing as never)).data?.field).toBe('domain');
  });

  it('refuses a 1 MB skill text and a capability id that breaks the id rule, naming field and rule', () => {
    const huge = { ...good, capabilities: { summarize: { description: 'x'.repeat(1 << 20) } } };
    const tooLong = failure(() => loadDeclaration(file('huge.json', JSON.stringify(huge))));
    expect(tooLong.code).toBe('INVALID_DECLARATION');
    expect(tooLong.data?.field).toBe('capabilities.summarize.description');
    expect(tooLong.message.length).toBeLessThan(1000);
    const badId = failure(() => loadDeclaration({ ...good, capabilities: { 'Word Count!': {} } } as never));
    expect(badId.code).toBe('INVALID_DECLARATION');
    expect(badId.message).toContain('capability ids match [a-z][a-z0-9_]{0,39}');
  });

  it('refuses an agent name that differs from the runtime agentName', () => {
    const error = failure(() => loadDeclaration(good, 'translator'));
    expect(error.data?.field).toBe('agent_name');
    expect(error.message).toMatch(/summarizer-v2.*translator/);
  });

  it('reports unreadable and unparsable files', () => {
    expect(failure(() => loadDeclaration(join(dir, 'missing.json'))).message).toContain('cannot read');
    expect(failure(() => loadDeclaration(file('c.json', '{"agent_name": '))).message).toContain(
      'not valid JSON',
    );
  });
});
