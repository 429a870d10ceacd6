import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { event, json, type Reply, run, sse, TRACE, traceDetail } from '../testing/cli-harness.js';
import { COMMANDS, type CommandName, type CommandSpec } from './commands-spec.js';

const INSTANCE = {
  instance_id: 'summarizer-v2-1a2b',
  agent_name: 'summarizer-v2',
  state: 'healthy',
  endpoint: { host: '127.0.0.1', port: 9001, scheme: 'http', alpn: ['http/1.1'] },
  capabilities: ['summarize'],
  load: 0,
  last_heartbeat: '2026-01-01T00:00:05.000Z',
};
const ZONE = '$ORIGIN agents.internal.\n@ 30 IN SOA ns. admin. 1 60 60 60 30\n';

/** One `--json` case per read command: the argv, the API's answer, and what stdout must parse to. */
const JSON_CASES: Record<
  string,
  { argv: string[]; routes: Record<string, Reply | Reply[]>; expected: unknown }
> = {
  agents: {
    argv: ['agents'],
    routes: { 'GET /v1/agents': json({ instances: [INSTANCE] }) },
    expected: [INSTANCE],
  },
  agent: {
    argv: ['agent', INSTANCE.instance_id],
    routes: { [`GET /v1/agents/${INSTANCE.instance_id}`]: json(INSTANCE) },
    expected: INSTANCE,
  },
  declarations: {
    argv: ['declarations', 'summarizer-v2'],
    routes: { 'GET /v1/declarations/summarizer-v2': json({ history: [{ version: '1', reason: 'first' }] }) },
    expected: [{ version: '1', reason: 'first' }],
  },
  route: {
    argv: ['route', 'summarize'],
    routes: { 'POST /v1/route': json({ candidates: [], conflict: null, cached: false }) },
    expected: { candidates: [], conflict: null, cached: false },
  },
  conflicts: {
    argv: ['conflicts'],
    routes: { 'GET /v1/conflicts': json({ conflicts: [] }) },
    expected: [],
  },
  report: {
    argv: ['report', '--window', '30d'],
    routes: { 'GET /v1/reports/governance?window=30d': json({ window: '30d', capabilities: [] }) },
    expected: { window: '30d', capabilities: [] },
  },
  zone: { argv: ['zone'], routes: { 'GET /v1/zone': new Response(ZONE) }, expected: { zone: ZONE } },
  stats: {
    argv: ['stats'],
    routes: { 'GET /v1/routing/stats': json({ routes: { total: 0 }, calls: { total: 0 }, instances: [] }) },
    expected: { routes: { total: 0 }, calls: { total: 0 }, instances: [] },
  },
  traces: {
    argv: ['traces', '--q', TRACE],
    routes: { 'GET /api/traces': json({ items: [traceDetail('ok').trace], next_cursor: null }) },
    expected: { items: [traceDetail('ok').trace], next_cursor: null },
  },
  trace: {
    argv: ['trace', TRACE],
    routes: { [`GET /api/traces/${TRACE}`]: json(traceDetail('ok')) },
    expected: traceDetail('ok'),
  },
  watch: {
    argv: ['watch', TRACE],
    routes: {
      [`GET /api/stream/${TRACE}`]: sse(
        `${event(1, 'trace_finished', { status: 'ok' })}event: done\ndata: {"status":"ok"}\n\n`,
      ),
    },
    expected: [
      JSON.parse(
        JSON.stringify({
          trace_id: TRACE,
          seq: 1,
          type: 'trace_finished',
          at: '2026-01-01T00:00:01.000Z',
          data: { status: 'ok' },
        }),
      ),
      { done: true, status: 'ok' },
    ],
  },
  discovery: {
    argv: ['discovery'],
    routes: {
      'GET /api/discovery': json({ zone: 'agents.internal', capabilities: {}, stats: {}, totals: {} }),
    },
    expected: { zone: 'agents.internal', capabilities: {}, stats: {}, totals: {} },
  },
};

const NAMES = Object.keys(COMMANDS) as CommandName[];
const READ_COMMANDS = NAMES.filter((name) => (COMMANDS[name] as CommandSpec).read !== false);

describe('reach --help and --version', () => {
  it.each(NAMES)(
    'reach %s --help prints its usage, options and exit codes, calls nothing, exits 0',
    async (name) => {
      for (const argv of [
        [name, '--help'],
        [name, '-h'],
        ['help', name],
      ]) {
        const r = await run(argv);
        expect(r.code, argv.join(' ')).toBe(0);
        expect(r.out).toContain(`usage: ${COMMANDS[name].usage}`);
        expect(r.out).toContain('--json');
        expect(r.out).toContain('exit codes: 0 done');
        expect(r.calls).toHaveLength(0);
      }
    },
  );

  it('lists every command in reach --help', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const name of NAMES) expect(r.out).toContain(`reach ${name}`);
  });

  it('prints the version from the package', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-V', 'version']) {
      const r = await run([flag]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`reach ${pkg.version} (node ${process.version})`);
    }
  });
});

describe('reach usage mistakes', () => {
  it('suggests the command meant by a typo and exits 2 without calling anything', async () => {
    const r = await run(['agentz']);
    expect(r).toMatchObject({ code: 2, out: '' });
    expect(r.err).toBe('reach: unknown command "agentz"\ndid you mean "reach agents"?');
    expect(r.calls).toHaveLength(0);
    expect((await run(['help', 'tracse'])).err).toContain('did you mean "reach traces"?');
    expect((await run(['frobnicate'])).err).toContain('see: reach --help');
  });

  it('suggests the option meant by a typo, with the usage', async () => {
    const r = await run(['agents', '--stat', 'healthy']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual([
      'reach: unknown option --stat',
      'did you mean --state?',
      `usage: ${COMMANDS.agents.usage}`,
    ]);
  });
});

describe('reach --json', () => {
  it('has a --json case for every read command', () => {
    expect(Object.keys(JSON_CASES).sort()).toEqual([...READ_COMMANDS].sort());
  });

  it.each(Object.entries(JSON_CASES))('reach %s --json prints JSON a script can parse', async (_name, c) => {
    const r = await run([...c.argv, '--json'], c.routes);
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    const parsed =
      Array.isArray(c.expected) && _name === 'watch' ? lines.map((l) => JSON.parse(l)) : JSON.parse(r.out);
    expect(parsed).toEqual(c.expected);
  });

  it('keeps reach run --json stdout to the summary alone (progress on stderr)', async () => {
    const r = await run(['run', 'plan', '--json'], {
      'POST /api/start': json({ trace_id: TRACE, status: 'started' }, 202),
      [`GET /api/stream/${TRACE}`]: sse(
        `${event(1, 'trace_finished', { status: 'ok' })}event: done\ndata: {"status":"ok"}\n\n`,
      ),
      [`GET /api/traces/${TRACE}`]: json(traceDetail('ok')),
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      trace_id: TRACE,
      status: 'ok',
      summary: 'the plan',
      duration_ms: 40,
      plan_degraded: false,
      nodes: [{ node_id: 'n1', capability: 'planning', status: 'succeeded' }],
    });
    expect(r.err).toContain(`trace ${TRACE} started`);
    const quiet = await run(['run', 'plan', '-q'], {
      'POST /api/start': json({ trace_id: TRACE, status: 'started' }, 202),
      [`GET /api/stream/${TRACE}`]: sse('event: done\ndata: {"status":"ok"}\n\n'),
      [`GET /api/traces/${TRACE}`]: json(traceDetail('ok')),
    });
    expect(quiet.err).toBe('');
  });
});

describe('reach zone -o', () => {
  it('writes the whole zone to the file and nothing to stdout', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-zone-'));
    const file = join(dir, 'agents.internal.zone');
    const r = await run(['zone', '-o', file], { 'GET /v1/zone': new Response(ZONE) });
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(await readFile(file, 'utf8')).toBe(ZONE);
    expect(r.err).toBe(`wrote 2 lines to ${file}`);
  });

  it('leaves an existing file alone when the registry cannot be reached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-zone-'));
    const file = join(dir, 'agents.internal.zone');
    await run(['zone', '-o', file], { 'GET /v1/zone': new Response(ZONE) });
    const r = await run(['zone', '-o', file]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^UNAVAILABLE: cannot reach the registry/);
    expect(await readFile(file, 'utf8')).toBe(ZONE);
  });
});
