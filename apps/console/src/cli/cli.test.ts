import { describe, expect, it } from 'vitest';
import { ENV, event, json, run, sse, TRACE, traceDetail } from '../testing/cli-harness.js';

describe('reach CLI arguments', () => {
  it('prints help and exits 0', async () => {
    const r = await run(['help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('reach route <operation>');
    expect((await run(['watch', '--help'])).out).toContain('usage: reach watch <trace_id>');
  });

  it('refuses unknown commands, unknown options, missing and extra arguments as usage errors (exit 2)', async () => {
    for (const argv of [
      ['frob'],
      ['traces', '--bogus'],
      ['agent'],
      ['agent', 'a', 'b'],
      ['traces', '--limit', '500'],
      ['traces', '--limit'],
      ['agents', '--json=yes'],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toMatch(/^reach: /);
      expect(r.err, argv.join(' ')).not.toMatch(/BAD_REQUEST/);
      expect(r.calls).toHaveLength(0);
    }
  });

  it('builds the route query from the options', async () => {
    const r = await run(
      [
        'route',
        'summarize',
        '--domain',
        'text',
        '--input-size',
        '5000',
        '--max-latency',
        '1500ms',
        '--max-candidates',
        '2',
      ],
      {
        'POST /v1/route': json({
          candidates: [
            {
              instance_id: 'summarizer-v2-1a2b',
              agent_name: 'summarizer-v2',
              operation: 'summarize',
              endpoint: { host: '127.0.0.1', port: 9001, scheme: 'http', alpn: ['http/1.1'] },
              card_url: 'http://127.0.0.1:9001/.well-known/agent-card.json',
              idempotent: true,
              declaration_version: '2',
              state: 'healthy',
              score: 0.81,
              breakdown: { match: 1, health: 1, success_rate: 0.9, load: 1, warmup: 1, priority: 0.9 },
            },
          ],
          conflict: null,
          cached: false,
        }),
      },
    );
    expect(r.code).toBe(0);
    expect(r.calls[0]!.url).toBe('http://registry.test:8701/v1/route');
    expect(JSON.parse(r.calls[0]!.body!)).toEqual({
      operation: 'summarize',
      domain: 'text',
      constraints: { input_size: 5000, max_latency_sec: 1.5 },
      max_candidates: 2,
    });
    expect(r.out).toMatch(/1\s+summarizer-v2-1a2b\s+summarizer-v2\s+healthy\s+0\.810/);
  });

  it('registers an A2A agent by card URL with skill mappings and the registry token', async () => {
    const answer = {
      instance_id: 'upper-echo-1a2b',
      agent_name: 'upper-echo',
      capabilities: { 'upper-echo': 'writing' },
      card_url: 'http://10.0.0.7:9000/.well-known/agent-card.json',
      card_sha256: 'x'.repeat(43),
      a2a: { url: 'http://10.0.0.7:9000/a2a/jsonrpc', binding: 'JSONRPC' },
      declaration_version: 'card-0123456789abcdef',
      probe_interval_ms: 5000,
      lease_token: 'lease',
    };
    const argv = [
      'register',
      '--card',
      answer.card_url,
      '--map',
      'upper-echo=writing',
      '--name',
      'upper-echo',
    ];
    const r = await run(
      argv,
      { 'POST /v1/agents/external': json(answer, 201) },
      { ...ENV, REACH_REGISTRY_TOKEN: 'reg-token' },
    );
    expect(r.code, r.err).toBe(0);
    expect(r.calls[0]!.url).toBe('http://registry.test:8701/v1/agents/external');
    expect(r.calls[0]!.headers.get('authorization')).toBe('Bearer reg-token');
    expect(JSON.parse(r.calls[0]!.body!)).toEqual({
      card_url: answer.card_url,
      capabilities: { 'upper-echo': 'writing' },
      agent_name: 'upper-echo',
    });
    expect(r.out).toContain('upper-echo → writing');
    expect(r.out).toContain('JSONRPC http://10.0.0.7:9000/a2a/jsonrpc');
    for (const bad of [['register'], ['register', '--card', 'x', '--map', 'nothing']]) {
      const refused = await run(bad);
      expect(refused.code, bad.join(' ')).toBe(2);
      expect(refused.calls).toHaveLength(0);
    }
    const unreachable = await run(['register', '--card', answer.card_url], {
      'POST /v1/agents/external': json({ code: 'CARD_UNREACHABLE', message: 'card … is unreachable' }, 422),
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain('CARD_UNREACHABLE');
  });

  it('marks a declaration version verified with the registry token; declarations show which is which', async () => {
    const entry = {
      agent_name: 'summarizer-v2',
      version: '2',
      change_reason: 'longer inputs',
      recorded_at: '2026-01-01T00:00:00.000Z',
      changed_by: null,
      declaration: {
        domain: 'text',
        capabilities: {},
        priority: 50,
        idempotent: false,
        substitutable: false,
      },
      verified: true,
      verified_at: '2026-01-02T00:00:00.000Z',
      verified_by: 'ops',
      verified_reason: 'canary reviewed',
      successful_calls: 3,
    };
    const path = 'POST /v1/declarations/summarizer-v2/versions/2/verify';
    const r = await run(
      ['verify-version', 'summarizer-v2', '2', '--reason', 'canary reviewed'],
      { [path]: json(entry) },
      { ...ENV, REACH_REGISTRY_TOKEN: 'ops-token' },
    );
    expect(r.code, r.err).toBe(0);
    expect(r.calls[0]!.headers.get('authorization')).toBe('Bearer ops-token');
    expect(JSON.parse(r.calls[0]!.body!)).toEqual({ reason: 'canary reviewed' });
    expect(r.out).toContain('2026-01-02T00:00:00.000Z by ops');
    const refused = await run(['verify-version', 'summarizer-v2', '2'], {
      [path]: json({ code: 'FORBIDDEN', message: 'token "agents" lacks the verify_declarations right' }, 403),
    });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('FORBIDDEN');
    expect(JSON.parse(refused.calls[0]!.body!)).toEqual({});

    const v1 = { ...entry, version: '1', change_reason: null, verified: false, verified_by: null };
    const history = await run(['declarations', 'summarizer-v2'], {
      'GET /v1/declarations/summarizer-v2': json({ history: [v1, entry] }),
    });
    expect(history.out).toContain('version 1  2026-01-01T00:00:00.000Z  unverified (3 successful calls)');
    expect(history.out).toContain('version 2  2026-01-01T00:00:00.000Z  verified (by ops)  longer inputs');
  });

  it('refuses a latency that is not a duration before calling', async () => {
    const r = await run(['route', 'summarize', '--max-latency', 'fast']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('reach: --max-latency');
    expect(r.err).toContain('usage: reach route');
    expect(r.calls).toHaveLength(0);
  });

  it('takes --registry over the environment and validates it', async () => {
    const ok = await run(['conflicts', '--registry', 'http://other:1/'], {
      'GET /v1/conflicts': json({ conflicts: [] }),
    });
    expect(ok.calls[0]!.url).toBe('http://other:1/v1/conflicts');
    expect(ok.out).toBe('no conflicts');
    const bad = await run(['conflicts', '--registry', 'other:1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^reach: .*--registry/);
  });
});

describe('reach CLI output and errors', () => {
  it('prints the API answer as JSON with --json', async () => {
    const stats = {
      routes: { total: 4, cached: 1, cache_hit_rate: 0.25 },
      calls: { total: 10, hit_rate: 0.9, fallback_rate: 0.1, failed: 0, retries: { '0': 9, '1': 1 } },
      instances: [],
    };
    const r = await run(['stats', '--json'], { 'GET /v1/routing/stats': json(stats) });
    expect(JSON.parse(r.out)).toEqual(stats);
    const table = await run(['stats'], { 'GET /v1/routing/stats': json(stats) });
    expect(table.out).toContain('route hit rate: 90.0% of 10 calls');
    expect(table.out).toContain('fallback rate:  10.0%');
  });

  it('prints the API error as code: message and exits 1', async () => {
    const r = await run(['agent', 'nobody-1a2b'], {
      'GET /v1/agents/nobody-1a2b': json(
        { code: 'UNKNOWN_INSTANCE', message: 'no instance nobody-1a2b' },
        410,
      ),
    });
    expect(r).toMatchObject({ code: 1, err: 'UNKNOWN_INSTANCE: no instance nobody-1a2b', out: '' });
  });

  it('names the API it cannot reach', async () => {
    const r = await run(['traces']);
    expect(r.code).toBe(1);
    expect(r.err).toBe('UNAVAILABLE: cannot reach the orchestrator at http://orch.test:8702 (ECONNREFUSED)');
  });

  it('prints the zone file as it is', async () => {
    const zone = '$ORIGIN agents.internal.\n@ 30 IN SOA ns. admin. 1 60 60 60 30\n';
    const r = await run(['zone'], { 'GET /v1/zone': new Response(zone) });
    expect(r.out).toBe(zone.trimEnd());
  });

  it('passes the agents filter as a query', async () => {
    const r = await run(['agents', '--state', 'healthy'], { 'GET /v1/agents': json({ instances: [] }) });
    expect(r.calls[0]!.url).toBe('http://registry.test:8701/v1/agents?state=healthy');
    expect(r.out).toBe('no agent is registered');
  });
});

describe('reach run, start and watch', () => {
  it('joins an unquoted task, sends the API token only on writes, shows progress on stderr, exits 3 for a failed run', async () => {
    const env = { ...ENV, REACH_API_TOKEN: 'secret-token' };
    const r = await run(
      ['run', 'write', 'a', 'plan'],
      {
        'POST /api/start': json({ trace_id: TRACE, status: 'started' }, 202),
        [`GET /api/stream/${TRACE}`]: sse(
          `${event(1, 'trace_started', { task: 'write a plan' })}${event(2, 'node_started', { node_id: 'n1', capability: 'planning' })}${event(3, 'node_failed', { node_id: 'n1', stage: 'call', error: { code: 'TIMEOUT', message: 'slow' } })}${event(4, 'trace_finished', { status: 'failed', duration_ms: 40 })}event: done\ndata: {"status":"failed"}\n\n`,
        ),
        [`GET /api/traces/${TRACE}`]: json(traceDetail('failed')),
      },
      env,
    );
    expect(JSON.parse(r.calls[0]!.body!)).toEqual({ text: 'write a plan' });
    expect(r.calls[0]!.headers.get('authorization')).toBe('Bearer secret-token');
    expect(r.code).toBe(3);
    const progress = r.err.split('\n');
    // The trace id comes first, before any node state, so a user can open it while it runs.
    expect(progress[0]).toBe(`trace ${TRACE} started; waiting for the plan…`);
    expect(progress[1]).toMatch(/node_started\s+n1 \(planning\)$/);
    expect(progress[2]).toMatch(/node_failed\s+n1 \(call\)/);
    expect(r.out).toMatch(new RegExp(`^trace:\\s+${TRACE}\\nstatus:\\s+failed`));
    const list = await run(['traces'], { 'GET /api/traces': json({ items: [], next_cursor: null }) }, env);
    expect(list.calls[0]!.headers.get('authorization')).toBeNull();
  });

  it('starts, then follows the stream to the end', async () => {
    const r = await run(['start', 'plan a party', '--watch'], {
      'POST /api/start': json({ trace_id: TRACE, status: 'started' }, 202),
      [`GET /api/stream/${TRACE}`]: sse(
        `${event(1, 'trace_started', { task: 'plan a party' })}: keep-alive\n\n${event(2, 'node_succeeded', {
          node_id: 'n1',
          capability: 'planning',
          ms: 120,
          chars: 40,
          attempts: 1,
          agent: 'planner-agent',
        })}${event(3, 'trace_finished', { status: 'ok', duration_ms: 300 })}event: done\ndata: {"status":"ok"}\n\n`,
      ),
    });
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(TRACE);
    expect(lines[1]).toMatch(/^#1\s+00:00:01\.000\s+trace_started\s+plan a party$/);
    expect(lines[2]).toMatch(/node_succeeded\s+n1 by planner-agent in 120ms, 40 chars, 1 attempt$/);
    expect(lines.at(-1)).toBe('done: ok');
  });

  it('reconnects with Last-Event-ID and shows no event twice', async () => {
    const r = await run(['watch', TRACE, '--json'], {
      [`GET /api/stream/${TRACE}`]: [
        sse(event(1, 'trace_started', { task: 't' })),
        sse(
          `${event(1, 'trace_started', { task: 't' })}${event(2, 'trace_finished', { status: 'degraded' })}event: done\ndata: {"status":"degraded"}\n\n`,
        ),
      ],
    });
    expect(r.calls[1]!.headers.get('last-event-id')).toBe('1');
    const lines = r.out.split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.seq ?? l.status)).toEqual([1, 2, 'degraded']);
    expect(r.code).toBe(0);
  });

  it('ends with TIMEOUT when the server reports an idle stream', async () => {
    const r = await run(['watch', TRACE], {
      [`GET /api/stream/${TRACE}`]: sse('event: stream_timeout\ndata: {"idle_ms":420000}\n\n'),
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^TIMEOUT: /);
  });

  it('gives up when the stream keeps dropping without progress', async () => {
    const r = await run(['watch', TRACE, '--after', '4'], {
      [`GET /api/stream/${TRACE}`]: Array.from({ length: 10 }, () => sse(': keep-alive\n\n')),
    });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^UNAVAILABLE: the event stream .* ended before the run did/);
    expect(r.calls[0]!.headers.get('last-event-id')).toBe('4');
    expect(r.calls).toHaveLength(6);
  });
});

describe('reach watch across an orchestrator restart', () => {
  it('retries a refused connection and resumes after the last event', async () => {
    const refused = () => {
      throw new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    };
    const r = await run(['watch', TRACE], {
      [`GET /api/stream/${TRACE}`]: [
        sse(event(1, 'trace_started', { task: 't' })),
        refused as unknown as () => Response,
        sse(`${event(2, 'trace_finished', { status: 'ok' })}event: done\ndata: {"status":"ok"}\n\n`),
      ],
    });
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.calls.map((c) => c.headers.get('last-event-id'))).toEqual([null, '1', '1']);
  });

  it('does not retry an answer such as NOT_FOUND', async () => {
    const r = await run(['watch', TRACE], {
      [`GET /api/stream/${TRACE}`]: json({ code: 'NOT_FOUND', message: `no trace ${TRACE}` }, 404),
    });
    expect(r.err).toBe(`NOT_FOUND: no trace ${TRACE}`);
    expect(r.calls).toHaveLength(1);
  });
});
