import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cli } from '@agent-reach/console/cli';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleStack, STACK_AGENTS } from './console-stack.js';
import { pngFacts } from './png.js';

const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url));
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const exec = promisify(execFile);
type TracePage = { items: Array<{ id: string }> };
const FINISHED = ['succeeded', 'failed', 'unavailable', 'skipped', 'interrupted'];

let stack: ConsoleStack;
let browser: Browser;
let page: Page;
/** Script errors and CSP violations the page reported. */
const problems: string[] = [];

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  // Each agent takes a while, so the test can see nodes running before they finish.
  stack = await ConsoleStack.start({ agentDelayMs: 700 });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
}, 480_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

/** The states of every node of the DAG on the page, by node id. */
const nodeStates = (p: Page): Promise<Record<string, string>> =>
  p.$$eval('svg.dag g.node', (els) =>
    Object.fromEntries(
      els.map((e) => [e.getAttribute('data-node') ?? '', e.getAttribute('data-state') ?? '']),
    ),
  );

/** The DAG's edges as `from->to`, with their drawn state. */
const edges = (p: Page) =>
  p.$$eval('svg.dag path.edge', (els) =>
    els.map((e) => ({
      edge: `${e.getAttribute('data-from')}->${e.getAttribute('data-to')}`,
      state: e.getAttribute('data-state'),
    })),
  );

/** Waits until the page shows no "Loading…" / "Asking DNS…" placeholder. */
async function settled(p: Page) {
  await p.waitForSelector('main .page-title');
  // Polled from here: the console's CSP (script-src 'self') refuses waitForFunction's string eval.
  await expect
    .poll(
      () =>
        p.evaluate<boolean>("/Loading…|Asking DNS…/.test(document.querySelector('main')?.textContent ?? '')"),
      {
        timeout: 20_000,
      },
    )
    .toBe(false);
}

/** A screenshot saved under test/.artifacts and checked: the viewport's size, and not a blank page. */
async function screenshot(p: Page, name: string, width: number) {
  const png = await p.screenshot({ path: `${ARTIFACTS}${name}.png` });
  const facts = pngFacts(png);
  expect(facts.width, name).toBe(width);
  expect(facts.height, name).toBeGreaterThan(300);
  // Text, badges and the header: far more than the one or two colours of an empty page.
  expect(facts.colours, name).toBeGreaterThan(20);
  return facts;
}

type TraceApi = {
  trace: { status: string };
  nodes: Array<{ node_id: string; depends_on: string[]; status: string }>;
  events: unknown[];
};

describe('console in a real browser against the real system', () => {
  let traceId = '';

  it('starts a run from the Run page; the DAG shows nodes changing state live and an edge for every dependency', async () => {
    await page.goto(`${stack.consoleUrl}/#/run`);
    await page
      .getByLabel('Task')
      .fill('设计一个家庭局域网安全智能体发现系统，分析风险、查找证据并给出实现和验收方案');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/#\/run\/[0-9a-f]{32}$/, { timeout: 30_000 });
    traceId = page.url().split('/').at(-1)!;

    // Every state each node was seen in, sampled while the run goes on (SSE, not only the end state).
    const seen = new Map<string, Set<string>>();
    const edgeStatesSeen = new Set<string>();
    await expect
      .poll(
        async () => {
          const states = await nodeStates(page);
          for (const [id, state] of Object.entries(states)) {
            if (!seen.has(id)) seen.set(id, new Set());
            seen.get(id)!.add(state);
          }
          for (const e of await edges(page)) edgeStatesSeen.add(e.state ?? '');
          const all = Object.values(states);
          return all.length > 0 && all.every((s) => FINISHED.includes(s));
        },
        { timeout: 120_000, interval: 150 },
      )
      .toBe(true);
    // Nodes changed state in front of us: some were seen running and then succeeded.
    const changed = [...seen.values()].filter((s) => s.has('running') && s.has('succeeded'));
    expect(changed.length).toBeGreaterThanOrEqual(2);
    expect(edgeStatesSeen).toContain('active');
    const states = await nodeStates(page);
    expect(Object.keys(states).length).toBeGreaterThanOrEqual(3);
    expect(Object.values(states).every((s) => s === 'succeeded')).toBe(true);

    // One SVG edge for each dependency the orchestrator recorded, between the right node ids.
    const api = (await (await fetch(`${stack.orchestratorUrl}/api/traces/${traceId}`)).json()) as TraceApi;
    const expected = api.nodes.flatMap((n) => n.depends_on.map((d) => `${d}->${n.node_id}`)).sort();
    expect(expected.length).toBeGreaterThanOrEqual(2);
    const drawn = await edges(page);
    expect(drawn.map((e) => e.edge).sort()).toEqual(expected);
    expect(drawn.every((e) => e.state === 'done')).toBe(true);
    // dagre puts each edge's target to the right of its source (the layout is left to right).
    const boxes: Record<string, number> = await page.$$eval('svg.dag g.node', (els) =>
      Object.fromEntries(els.map((e) => [e.getAttribute('data-node') ?? '', e.getBoundingClientRect().x])),
    );
    for (const edge of expected) {
      const [from, to] = edge.split('->') as [string, string];
      expect(boxes[to]!, edge).toBeGreaterThan(boxes[from]!);
    }

    // Each node names its capability and the agent that served it, with attempts and a duration.
    const facts = await page.$$eval('svg.dag g.node', (els) =>
      els.map((e) => ({
        capability: e.querySelector('.node-capability')?.textContent ?? '',
        agent: e.querySelector('.node-agent')?.textContent ?? '',
        attempts: e.querySelector('.node-attempts')?.textContent ?? '',
        duration: e.querySelector('.node-duration')?.textContent ?? '',
      })),
    );
    for (const f of facts) {
      expect(f.agent).toMatch(/-agent$/);
      expect(f.attempts).toBe('1');
      expect(f.duration).toMatch(/^\d+(\.\d)?(ms|s)$/);
    }
    expect(facts.map((f) => f.capability)).toContain('synthesis');

    // The span waterfall: the run, discovery, planning and every node, each with a bar.
    await expect
      .poll(() => page.$$eval('.waterfall [data-span]', (els) => els.map((e) => e.getAttribute('data-span'))))
      .toEqual(expect.arrayContaining(['run', 'discovery', 'plan', ...api.nodes.map((n) => n.node_id)]));

    // The deliverable arrives when the run ends; the event log runs from start to finish.
    await page.waitForSelector('.deliverable-text', { timeout: 30_000 });
    expect((await page.textContent('.deliverable-text'))!.length).toBeGreaterThan(100);
    const types = await page.$$eval('.event-log .event', (els) =>
      els.map((e) => e.getAttribute('data-type')),
    );
    expect(types[0]).toBe('trace_started');
    expect(types.at(-1)).toBe('trace_finished');
    expect(types).toContain('plan_ready');
    expect(await page.textContent('.run-head .badge')).toBe('ok');
    const dag = pngFacts(await page.locator('svg.dag').screenshot({ path: `${ARTIFACTS}console-dag.png` }));
    expect(dag.width).toBeGreaterThan(400);
    expect(dag.colours).toBeGreaterThan(10);
    await page.screenshot({ path: `${ARTIFACTS}console-run-dag.png`, fullPage: true });
  }, 240_000);

  it('opens the trace: id, Jaeger link, plan, DAG, span waterfall, nodes with context and output, every event', async () => {
    await page.click('.run-head a[href^="#/traces/"]');
    await page.waitForSelector('.trace-id', { timeout: 30_000 });
    expect(await page.textContent('.trace-id')).toBe(traceId);
    // OTLP export configured → the Jaeger link is there by default.
    expect(await page.getAttribute('a.jaeger-link', 'href')).toBe(`${stack.jaegerUrl}/trace/${traceId}`);
    const api = (await (await fetch(`${stack.orchestratorUrl}/api/traces/${traceId}`)).json()) as TraceApi;
    expect(await page.$$eval('svg.dag path.edge', (els) => els.length)).toBe(
      api.nodes.reduce((n, node) => n + node.depends_on.length, 0),
    );
    const spans = await page.$$eval('.waterfall [data-span]', (els) =>
      els.map((e) => ({ id: e.getAttribute('data-span'), state: e.getAttribute('data-state') })),
    );
    expect(spans.length).toBe(api.nodes.length + 3);
    expect(
      spans
        .filter((s) => s.id !== 'run' && s.id !== 'discovery' && s.id !== 'plan')
        .every((s) => s.state === 'succeeded'),
    ).toBe(true);

    const nodes = await page.$$('details.node-detail');
    expect(nodes.length).toBeGreaterThanOrEqual(3);
    // Open the synthesis node: its input context carries the upstream outputs.
    const last = nodes.at(-1)!;
    await last.evaluate((el) => el.setAttribute('open', ''));
    expect((await last.$eval('.node-context', (e) => e.textContent ?? '')).length).toBeGreaterThan(50);
    expect((await last.$eval('.node-output', (e) => e.textContent ?? '')).length).toBeGreaterThan(50);

    const events = await page.$$eval('.event-log .event', (els) => els.length);
    expect(events).toBe(api.events.length);
    await page.screenshot({ path: `${ARTIFACTS}console-trace.png`, fullPage: true });
  }, 60_000);

  it('shows agents, declaration history, discovery, conflicts and routing metrics from the APIs', async () => {
    await page.click('#tabs a[href="#/agents"]');
    await page.waitForSelector('#agents table tbody tr');
    const agents = await page.$$eval('#agents table tbody tr', (rows) => rows.length);
    expect(agents).toBe(STACK_AGENTS.length);
    // Every capability with its description, providers and origin.
    await page.waitForSelector('#capabilities table tbody tr', { timeout: 30_000 });
    const capabilities = await page.textContent('#capabilities table');
    expect(capabilities).toContain('Write plans, proposals');
    expect(capabilities).toContain('writer-agent');
    expect(capabilities).toContain('built-in');
    await page.click('#agents table tbody a[href="#/agents/writer-agent"]');
    await page.waitForSelector('#declarations details.declaration');
    expect(await page.textContent('#declarations h2')).toContain('writer-agent');

    await page.click('#tabs a[href="#/discovery"]');
    await page.waitForSelector('main table tbody tr', { timeout: 30_000 });
    const discovery = await page.textContent('main table');
    expect(discovery).toContain('synthesis');
    expect(discovery).toContain('writer-agent');
    expect(discovery).toContain('Merge the other outputs into one final answer.');

    await page.click('#tabs a[href="#/conflicts"]');
    await settled(page);
    expect(await page.textContent('main .card')).toContain('No conflicts');

    await page.click('#tabs a[href="#/metrics"]');
    await page.waitForSelector('.tiles .tile');
    expect(await page.textContent('.tiles')).toContain('route hit rate');
    // A rate over no calls is not shown as a rate; with calls it is a percentage.
    const stats = (await (await fetch(`${stack.registryUrl}/v1/routing/stats`)).json()) as {
      calls: { total: number };
      instances: Array<{ instance_id: string; window: number }>;
    };
    const hit = await page.textContent('.tiles .tile:first-child .tile-value');
    expect(hit).toBe(stats.calls.total === 0 ? 'no calls yet' : expect.stringMatching(/^\d+\.\d%$/));
    // The durations of recent runs as a chart: one line with a point per finished run.
    // (A single run is one point: a path of zero length, attached but not "visible".)
    await page.waitForSelector('#runs .spark svg path.spark-line', { state: 'attached' });
    expect(await page.getAttribute('#runs .spark svg path.spark-line', 'd')).toMatch(
      /^M[\d.]+,[\d.]+( L[\d.]+,[\d.]+)*$/,
    );
    await page.screenshot({ path: `${ARTIFACTS}console-metrics.png`, fullPage: true });

    // An unknown route says so (with the page's one h1), instead of showing the Run page.
    await page.goto(`${stack.consoleUrl}/#/no-such-page/x`);
    await page.waitForSelector('[data-page="not-found"]');
    expect(await page.textContent('main')).toContain('There is no console page at #/no-such-page/x');
    expect(await page.locator('h1').count()).toBe(1);
    expect(await page.textContent('h1')).toBe('Page not found');
    expect(await page.locator('#tabs a[aria-current="page"]').count()).toBe(0);
  }, 90_000);

  it('fits every page at 1280 px and a 390 px phone without scrolling sideways, one h1 each, every input labelled', async () => {
    const wide: string[] = [];
    const routes = [
      'run',
      `run/${traceId}`,
      'traces',
      `traces/${traceId}`,
      'discovery',
      'agents',
      'agents/writer-agent',
      'conflicts',
      'metrics',
      'no-such-page',
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      for (const route of routes) {
        await page.goto(`${stack.consoleUrl}/#/${route}`);
        await settled(page);
        if (route.startsWith('run/')) await page.waitForSelector('.deliverable-text', { timeout: 30_000 });
        const [scroll, inner] = await page.evaluate<number[]>(
          '[document.documentElement.scrollWidth, window.innerWidth]',
        );
        if (scroll! > inner!) wide.push(`${route} at ${width}px: ${scroll}px wide`);
        expect(await page.locator('h1').count(), route).toBe(1);
        const unlabelled = await page.$$eval('input, select, textarea', (els) =>
          els
            .filter(
              (e) =>
                (e as unknown as { labels: unknown[] }).labels.length === 0 && !e.getAttribute('aria-label'),
            )
            .map((e) => e.outerHTML),
        );
        expect(unlabelled, route).toEqual([]);
        await screenshot(
          page,
          `console-${route.split('/')[0]}${route.includes('/') ? '-detail' : ''}-${width}`,
          width,
        );
      }
    }
    await page.setViewportSize({ width: 1440, height: 1000 });
    expect(wide).toEqual([]);
  }, 180_000);

  it('reaches every control of every page with the keyboard alone', async () => {
    const missed: string[] = [];
    for (const route of [
      'run',
      `run/${traceId}`,
      'traces',
      `traces/${traceId}`,
      'discovery',
      'agents/writer-agent',
      'conflicts',
      'metrics',
      'nope',
    ]) {
      await page.goto(`${stack.consoleUrl}/#/${route}`);
      await settled(page);
      if (route.startsWith('run/')) await page.waitForSelector('.deliverable-text', { timeout: 30_000 });
      // Number every visible control; then Tab from the top of the page and note each one that gets focus.
      // (Page scripts as strings: the root tsconfig has no DOM types.)
      const controls = await page.evaluate<string[]>(`(() => {
        const selector = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
          + 'textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
        const list = [...document.querySelectorAll(selector)].filter((e) => e.getClientRects().length > 0);
        list.forEach((e, i) => e.setAttribute('data-kb', String(i)));
        document.activeElement?.blur();
        return list.map((e) => e.tagName.toLowerCase() + ' ' + (e.textContent ?? '').trim().slice(0, 30));
      })()`);
      expect(controls.length, route).toBeGreaterThan(6);
      const reached = new Set<string>();
      for (let i = 0; i < controls.length + 5; i++) {
        await page.keyboard.press('Tab');
        const kb = await page.evaluate<string | null>(
          "document.activeElement?.getAttribute('data-kb') ?? null",
        );
        if (kb !== null) reached.add(kb);
      }
      for (const [i, c] of controls.entries()) if (!reached.has(String(i))) missed.push(`${route}: ${c}`);
    }
    expect(missed).toEqual([]);
    // The keyboard alone also works them: Enter on the Traces tab opens the page.
    await page.goto(`${stack.consoleUrl}/#/run`);
    await settled(page);
    await page.focus('#tabs a[href="#/traces"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/#\/traces$/);
  }, 120_000);

  it('lists the trace under Traces with a status filter, finds it by id from the search box, and deletes it', async () => {
    await page.goto(`${stack.consoleUrl}/#/traces`);
    await page.waitForSelector(`main table a[href="#/traces/${traceId}"]`);
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForSelector('main .trace-list .empty');
    await page.getByLabel('Status').selectOption('ok');
    await page.waitForSelector(`main table a[href="#/traces/${traceId}"]`);
    await page.getByLabel('Status').selectOption('');
    // The one search box finds the run by its whole trace id, by its first digits, and by text.
    for (const q of [traceId, traceId.slice(0, 10)]) {
      await page.getByRole('searchbox', { name: 'Search traces by id or text' }).fill(q);
      await page.getByRole('button', { name: 'Search' }).click();
      await expect
        .poll(() =>
          page.$$eval('main table a[href^="#/traces/"]', (els) => els.map((e) => e.getAttribute('href'))),
        )
        .toEqual([`#/traces/${traceId}`]);
    }
    await page.getByRole('searchbox', { name: 'Search traces by id or text' }).fill('家庭局域网');
    await page.keyboard.press('Enter');
    await expect
      .poll(() =>
        page.$$eval('main table a[href^="#/traces/"]', (els) => els.map((e) => e.getAttribute('href'))),
      )
      .toContain(`#/traces/${traceId}`);

    await page.click(`main table a[href="#/traces/${traceId}"]`);
    await page.waitForSelector('button.danger');
    page.once('dialog', (d) => void d.accept());
    await page.click('button.danger');
    await page.waitForURL(/#\/traces$/);
    expect((await fetch(`${stack.orchestratorUrl}/api/traces/${traceId}`)).status).toBe(404);
    expect(problems).toEqual([]);
  }, 60_000);
});

/** Runs the `reach` CLI in-process against the stack; `via` picks where `/api/*` goes. */
async function reach(argv: string[], via: 'orchestrator' | 'console' = 'orchestrator') {
  const out: string[] = [];
  const err: string[] = [];
  const code = await cli(
    argv,
    {
      REACH_REGISTRY_URL: via === 'console' ? `${stack.consoleUrl}/registry` : stack.registryUrl,
      REACH_ORCHESTRATOR_URL: via === 'console' ? stack.consoleUrl : stack.orchestratorUrl,
    },
    { out: (t) => out.push(t), err: (t) => err.push(t) },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('reach CLI against the real system', () => {
  it('lists agents, routes, declarations, conflicts and the zone from the registry', async () => {
    const agents = await reach(['agents']);
    expect(agents.code).toBe(0);
    for (const name of ['planner-agent', 'writer-agent', 'verifier-agent'])
      expect(agents.out).toContain(name);
    const route = await reach(['route', 'writing', '--max-latency', '60s']);
    expect(route.out).toMatch(/^1\s+writer-agent-[0-9a-f]+\s+writer-agent\s+healthy/m);
    expect((await reach(['declarations', 'writer-agent'])).out).toMatch(/^version 1 /);
    expect((await reach(['conflicts'])).out).toBe('no conflicts');
    expect((await reach(['zone'])).out).toMatch(
      /_writing\._a2a\._agents\.agents\.internal\.\s+\d+\s+IN\s+SVCB/,
    );
    expect((await reach(['stats', '--json'])).out).toContain('"fallback_rate"');
    // Through the console's /registry proxy the answers are the same.
    expect((await reach(['agents', '--json'], 'console')).out).toContain('"writer-agent"');
  });

  it('starts a run through the console and follows it to the end, then resumes after a seq', async () => {
    const started = await reach(['start', 'write a short launch plan with risks', '--watch'], 'console');
    expect(started.err).toBe('');
    expect(started.code).toBe(0);
    const lines = started.out.split('\n');
    const traceId = lines[0]!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines[1]).toMatch(/^#1\s+\S+\s+trace_started\s+write a short launch plan/);
    expect(lines.some((l) => /node_succeeded\s+n\d+ by \S+-agent/.test(l))).toBe(true);
    expect(lines.at(-1)).toBe('done: ok');

    const resumed = await reach(['watch', traceId, '--after', '5', '--json'], 'console');
    const events = resumed.out.split('\n').map((l) => JSON.parse(l) as { seq?: number; status?: string });
    expect(events[0]!.seq).toBe(6);
    expect(events.at(-1)).toEqual({ done: true, status: 'ok' });

    const trace = await reach(['trace', traceId, '--brief']);
    expect(trace.out).toMatch(/^trace:\s+[0-9a-f]{32}$/m);
    expect(trace.out).toContain('synthesis');
    expect((await reach(['traces', '--status', 'ok'])).out).toContain(traceId);
    // One search finds a trace by its id (whole or the first digits) as well as by text.
    const byId = JSON.parse((await reach(['traces', '--q', traceId, '--json'])).out) as TracePage;
    expect(byId.items.map((t) => t.id)).toEqual([traceId]);
    expect((await reach(['traces', '--q', traceId.slice(0, 8)])).out).toContain(traceId);
  }, 120_000);

  it('writes a zone that named-checkzone loads, redirected from pnpm -s or with -o', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'reach-zone-'));
    const env = { ...process.env, REACH_REGISTRY_URL: stack.registryUrl };
    const cwd = fileURLToPath(new URL('../../', import.meta.url));
    // Exactly what the README shows: the shell's redirect of the pnpm script.
    await exec('sh', ['-c', 'pnpm -s reach zone > "$1"', 'sh', join(dir, 'redirected.zone')], { cwd, env });
    const written = await exec(
      process.execPath,
      ['--import', 'tsx', 'apps/console/src/cli/main.ts', 'zone', '-o', join(dir, 'written.zone')],
      { cwd, env },
    );
    expect(written.stdout).toBe('');
    for (const file of ['redirected.zone', 'written.zone']) {
      const checked = await exec('named-checkzone', ['agents.internal', join(dir, file)]);
      expect(checked.stdout, file).toMatch(/loaded serial \d+\nOK/);
    }
    expect(await readFile(join(dir, 'redirected.zone'), 'utf8')).toMatch(
      /^; Agent Reach zone agents.internal,/,
    );
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a task, showing the trace id first and node states on stderr, and reports errors as code: message', async () => {
    const run = await reach(['run', 'summarise the risks of a home network', '--json']);
    expect(run.code).toBe(0);
    const progress = run.err.split('\n');
    expect(progress[0]).toMatch(/^trace [0-9a-f]{32} started/);
    expect(progress.some((l) => /node_started\s+n\d+ \(\w+\)$/.test(l))).toBe(true);
    expect(progress.some((l) => /node_succeeded\s+n\d+ by \S+-agent/.test(l))).toBe(true);
    const summary = JSON.parse(run.out) as { status: string; summary: string };
    expect(summary.status).toBe('ok');
    expect(summary.summary.length).toBeGreaterThan(50);
    const missing = await reach(['trace', `${'0'.repeat(31)}1`]);
    expect(missing).toMatchObject({ code: 1, err: `NOT_FOUND: no trace ${'0'.repeat(31)}1` });
    const discovery = await reach(['discovery']);
    expect(discovery.out).toMatch(/^writing\s+builtin\s+Write plans.*writer-agent.*svcb\s+yes/m);
  }, 120_000);
});
