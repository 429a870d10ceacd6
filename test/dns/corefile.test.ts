import { readFile } from 'node:fs/promises';
import { nameServerEntry, skydnsEntries, skydnsPath } from '@agent-reach/registry';
import { describe, expect, it } from 'vitest';

interface Directive {
  name: string;
  args: string[];
  block: Directive[];
}

interface ServerBlock {
  keys: string[];
  directives: Directive[];
}

/** Reads a Corefile's structure: server blocks of directives, each with arguments and an optional block. */
function parseCorefile(text: string): ServerBlock[] {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.length > 0);
  const blocks: ServerBlock[] = [];
  const stack: Directive[][] = [];
  for (const line of lines) {
    if (line === '}') {
      stack.pop();
      continue;
    }
    const opens = line.endsWith('{');
    const words = (opens ? line.slice(0, -1) : line).trim().match(/'[^']*'|\[[^\]]*\]|\S+/g) ?? [];
    if (stack.length === 0) {
      if (!opens) throw new Error(`expected a server block, got: ${line}`);
      const block: ServerBlock = { keys: words, directives: [] };
      blocks.push(block);
      stack.push(block.directives);
      continue;
    }
    const directive: Directive = { name: words[0]!, args: words.slice(1), block: [] };
    stack[stack.length - 1]!.push(directive);
    if (opens) stack.push(directive.block);
  }
  if (stack.length !== 0) throw new Error('unbalanced braces');
  return blocks;
}

// Plugins of CoreDNS's default build (plugin.cfg) that this Corefile may use.
const KNOWN_PLUGINS = new Set([
  'view',
  'forward',
  'etcd',
  'cache',
  'health',
  'ready',
  'prometheus',
  'log',
  'errors',
]);

/** A minimal registration record, as the registry stores it. */
function instanceRecordFor(zone: string): Parameters<typeof skydnsEntries>[0] {
  return {
    instance_id: 'summarizer-v2-3f9c',
    agent_name: 'summarizer-v2',
    declaration: {
      agent_name: 'summarizer-v2',
      version: '1',
      domain: 'text_processing',
      capabilities: {
        summarize: { input: [], output: [], constraints: {}, serves: ['writing'], description: 'x' },
      },
      priority: 50,
      idempotent: false,
      substitutable: false,
    },
    endpoint: { host: '127.0.0.1', port: 8001, scheme: 'http', alpn: ['http/1.1'] },
    card_url: `http://127.0.0.1:8001/.well-known/agent-card.json?zone=${zone}`,
    card_sha256: 'A'.repeat(43),
    lease_token_hash: 'ab'.repeat(32),
    lease_id: '1',
    registered_at: 0,
  };
}

describe('deploy/coredns/Corefile', () => {
  it('routes SVCB/HTTPS to the registry responder first and serves the rest from etcd', async () => {
    const text = await readFile(new URL('../../deploy/coredns/Corefile', import.meta.url), 'utf8');
    const blocks = parseCorefile(text);
    expect(blocks.map((b) => b.keys)).toEqual([['agents.internal:53'], ['agents.internal:53']]);
    for (const block of blocks) {
      for (const d of block.directives) expect(KNOWN_PLUGINS.has(d.name), d.name).toBe(true);
    }
    const [svcb, rest] = blocks as [ServerBlock, ServerBlock];
    const view = svcb.directives.find((d) => d.name === 'view')!;
    expect(view.block).toEqual([{ name: 'expr', args: ['type()', 'in', "['SVCB', 'HTTPS']"], block: [] }]);
    const forward = svcb.directives.find((d) => d.name === 'forward')!;
    expect(forward.args[0]).toBe('.');
    expect(forward.args[1]).toBe('{$REGISTRY_DNS}');
    expect(rest.directives.some((d) => d.name === 'view')).toBe(false);
    const etcd = rest.directives.find((d) => d.name === 'etcd')!;
    expect(etcd.args).toEqual(['agents.internal']);
    expect(etcd.block).toEqual([
      { name: 'path', args: ['/skydns'], block: [] },
      { name: 'endpoint', args: ['http://etcd:2379'], block: [] },
    ]);
    expect(rest.directives.map((d) => d.name).sort()).toEqual(
      ['cache', 'errors', 'etcd', 'health', 'log', 'prometheus', 'ready'].sort(),
    );
    // The registry writes its projection where this etcd block reads: the zone's NS message under
    // ns.dns.<zone> (CoreDNS's NS lookup) and every instance's messages under the zone's path.
    const root = etcd.block.find((d) => d.name === 'path')!.args[0]!;
    const zone = etcd.args[0]!;
    expect(
      nameServerEntry(zone, '10.96.0.10', 15).key.startsWith(`${skydnsPath(`ns.dns.${zone}`, root)}/`),
    ).toBe(true);
    for (const entry of skydnsEntries(instanceRecordFor(zone), zone, 15))
      expect(entry.key.startsWith(`${skydnsPath(zone, root)}/`), entry.key).toBe(true);
    // health and ready are process-wide: one server block only.
    expect(svcb.directives.some((d) => d.name === 'health' || d.name === 'ready')).toBe(false);
  });
});
