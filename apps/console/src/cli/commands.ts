import { rename, writeFile } from 'node:fs/promises';
import {
  type ExternalAgentRequest,
  parseDuration,
  parseReportWindow,
  type RouteQueryInput,
} from '@agent-reach/sdk/protocol';
import type { ApiClient } from './api-client.js';
import { intOption, type ParsedArgs } from './args.js';
import { formatGovernanceReport } from './format-governance.js';
import {
  formatAgent,
  formatAgents,
  formatConflicts,
  formatDeclarations,
  formatExternal,
  formatRoute,
  formatRoutingStats,
  formatVerified,
} from './format-registry.js';
import {
  formatDiscovery,
  formatEventLine,
  formatRunSummary,
  formatTrace,
  formatTraces,
} from './format-runs.js';
import { initAgent } from './init-agent.js';
import type { RunSummary, TraceDetail, TraceEventView } from './orchestrator-views.js';
import { EXIT, UsageError } from './usage-error.js';
import { formatVerify, runVerify } from './verify/index.js';
import { watchTrace } from './watch.js';

/** What a command needs: the API client, where output goes, and the wall clock for "ago" columns. */
export interface CommandDeps {
  api: ApiClient;
  out: (text: string) => void;
  /** Progress and notes (stderr), kept apart from the output that scripts read. */
  err: (text: string) => void;
  now: () => number;
  /** Passed to `reach watch` (tests shorten the reconnect delay). */
  watch?: { reconnectDelayMs?: number };
  /** The registry `reach verify` registers its faulty agent with, and the token for it. */
  registry?: { url: string; token: string | null };
}

type Command = Extract<ParsedArgs, { kind: 'command' }>;

/** Exit code of a command that followed a run: 3 when the run did not succeed. */
const runExit = (status: string) => (status === 'failed' || status === 'aborted' ? EXIT.runFailed : EXIT.ok);

/** Node events worth a progress line while `reach run` waits. */
const PROGRESS_EVENTS = new Set([
  'plan_ready',
  'capability_unavailable',
  'node_started',
  'node_retry',
  'node_attempt_failed',
  'node_succeeded',
  'node_failed',
  'trace_finished',
]);

/** The summary `reach run` prints, from the finished trace (the shape `POST /api/run` answers). */
export function runSummaryOf(detail: TraceDetail): RunSummary {
  const { trace, plan } = detail;
  return {
    trace_id: trace.id,
    status: trace.status,
    summary: trace.summary ?? '',
    duration_ms: trace.duration_ms ?? 0,
    plan_degraded: plan?.degraded ?? false,
    nodes: detail.nodes.map((n) => ({ node_id: n.node_id, capability: n.capability, status: n.status })),
    ...(trace.error ? { error: trace.error } : {}),
  };
}

/** `--max-latency`: seconds (`2`, `1.5`) or a duration (`1500ms`, `2s`); answers seconds. */
function latencySeconds(value: string | boolean | undefined): number | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  const seconds = /^\d+(\.\d+)?$/.test(text) ? Number(text) : (parseDuration(text) ?? Number.NaN) / 1000;
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(
      `--max-latency must be seconds or a duration like 2s or 1500ms, got ${JSON.stringify(value)}`,
    );
  return seconds;
}

/** The body of `POST /v1/agents/external` from `reach register`'s options. */
export function externalRequestOf(cmd: Command): ExternalAgentRequest {
  const o = cmd.options;
  if (typeof o.card !== 'string') throw new UsageError('--card <card URL> is required');
  const request: ExternalAgentRequest = { card_url: o.card };
  const maps = Array.isArray(o.map) ? o.map.map(String) : typeof o.map === 'string' ? [o.map] : [];
  if (maps.length > 0) {
    const capabilities: Record<string, string> = {};
    for (const entry of maps) {
      const at = entry.lastIndexOf('=');
      if (at <= 0 || at === entry.length - 1) throw new UsageError(`--map ${entry}: give skill=capability`);
      capabilities[entry.slice(0, at)] = entry.slice(at + 1);
    }
    request.capabilities = capabilities;
  }
  if (typeof o.name === 'string') request.agent_name = o.name;
  if (typeof o.domain === 'string') request.domain = o.domain;
  if (o.idempotent === true) request.idempotent = true;
  return request;
}

/** The route query `reach route` sends. */
export function routeQueryOf(cmd: Command): RouteQueryInput {
  const o = cmd.options;
  const constraints: NonNullable<RouteQueryInput['constraints']> = {};
  const inputSize = intOption(o['input-size'], 'input-size', 0, Number.MAX_SAFE_INTEGER);
  const latency = latencySeconds(o['max-latency']);
  if (inputSize !== undefined) constraints.input_size = inputSize;
  if (latency !== undefined) constraints.max_latency_sec = latency;
  if (typeof o['output-format'] === 'string') constraints.output_format = o['output-format'];
  const maxCandidates = intOption(o['max-candidates'], 'max-candidates', 1, 20);
  return {
    operation: cmd.args.operation!,
    ...(typeof o.domain === 'string' ? { domain: o.domain } : {}),
    constraints,
    ...(maxCandidates === undefined ? {} : { max_candidates: maxCandidates }),
  };
}

async function follow(cmd: Command, deps: CommandDeps, traceId: string, after = 0): Promise<number> {
  const print = (event: TraceEventView) =>
    deps.out(cmd.json ? JSON.stringify(event) : formatEventLine(event));
  const status = await watchTrace(deps.api, traceId, print, { after, ...deps.watch });
  deps.out(cmd.json ? JSON.stringify({ done: true, status }) : `done: ${status}`);
  return runExit(status);
}

/**
 * `reach run`: starts the task, prints the trace id and each node's progress on stderr while it
 * runs, then the summary on stdout.
 */
async function runTask(cmd: Command, deps: CommandDeps): Promise<number> {
  const provider = typeof cmd.options.provider === 'string' ? cmd.options.provider : undefined;
  const quiet = cmd.options.quiet === true;
  const progress = (text: string) => {
    if (!quiet) deps.err(text);
  };
  const started = await deps.api.start(cmd.args.task!, provider);
  progress(`trace ${started.trace_id} started; waiting for the plan…`);
  await watchTrace(
    deps.api,
    started.trace_id,
    (event) => {
      if (PROGRESS_EVENTS.has(event.type)) progress(formatEventLine(event));
    },
    deps.watch ?? {},
  );
  const summary = runSummaryOf(await deps.api.trace(started.trace_id));
  deps.out(cmd.json ? JSON.stringify(summary, null, 2) : formatRunSummary(summary));
  return runExit(summary.status);
}

/** Writes `text` to `path` whole: a partial file never replaces a good one. */
async function writeWhole(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text);
  await rename(temporary, path);
}

/** Runs one parsed command, writing its output; resolves with the exit code. API failures throw ReachError. */
export async function runCommand(cmd: Command, deps: CommandDeps): Promise<number> {
  const { api, out } = deps;
  const show = <T>(value: T, table: (v: T) => string) =>
    out(cmd.json ? JSON.stringify(value, null, 2) : table(value));
  const o = cmd.options;
  switch (cmd.command) {
    case 'agents': {
      const filter: Record<string, string> = {};
      if (typeof o.state === 'string') filter.state = o.state;
      if (typeof o.capability === 'string') filter.capability = o.capability;
      show(await api.agents(filter), (v) => formatAgents(v, deps.now()));
      return 0;
    }
    case 'agent':
      show(await api.agent(cmd.args.instance_id!), (v) => formatAgent(v, deps.now()));
      return 0;
    case 'declarations':
      show(await api.declarations(cmd.args.agent_name!), (v) => formatDeclarations(cmd.args.agent_name!, v));
      return 0;
    case 'verify-version': {
      const reason = typeof o.reason === 'string' ? o.reason : undefined;
      show(await api.verifyVersion(cmd.args.agent_name!, cmd.args.version!, reason), formatVerified);
      return 0;
    }
    case 'route':
      show(await api.route(routeQueryOf(cmd)), formatRoute);
      return 0;
    case 'conflicts':
      show(await api.conflicts(), formatConflicts);
      return 0;
    case 'register':
      show(await api.registerExternal(externalRequestOf(cmd)), formatExternal);
      return 0;
    case 'zone': {
      const zone = await api.zone();
      if (typeof o.output === 'string') {
        await writeWhole(o.output, zone.endsWith('\n') ? zone : `${zone}\n`);
        deps.err(`wrote ${zone.split('\n').filter(Boolean).length} lines to ${o.output}`);
        return 0;
      }
      out(cmd.json ? JSON.stringify({ zone }) : zone.replace(/\n$/, ''));
      return 0;
    }
    case 'stats':
      show(await api.routingStats(), formatRoutingStats);
      return 0;
    case 'report': {
      const window = typeof o.window === 'string' ? o.window : '7d';
      if (parseReportWindow(window) === null)
        throw new UsageError(
          `--window must be <n>h or <n>d (1h, 24h, 7d, 30d), got ${JSON.stringify(window)}`,
        );
      show(await api.governanceReport(window), formatGovernanceReport);
      return 0;
    }
    case 'run':
      return runTask(cmd, deps);
    case 'start': {
      const started = await api.start(
        cmd.args.task!,
        typeof o.provider === 'string' ? o.provider : undefined,
      );
      show(started, (s) => `${s.trace_id}`);
      return o.watch === true ? follow(cmd, deps, started.trace_id) : 0;
    }
    case 'watch':
      return follow(
        cmd,
        deps,
        cmd.args.trace_id!,
        intOption(o.after, 'after', 0, Number.MAX_SAFE_INTEGER) ?? 0,
      );
    case 'traces': {
      const query: Record<string, string> = {};
      for (const key of ['status', 'q', 'cursor'] as const)
        if (typeof o[key] === 'string') query[key] = o[key];
      const limit = intOption(o.limit, 'limit', 1, 200);
      if (limit !== undefined) query.limit = String(limit);
      show(await api.traces(query), (v) => formatTraces(v, deps.now()));
      return 0;
    }
    case 'trace':
      show(await api.trace(cmd.args.trace_id!), (v) => formatTrace(v, o.brief === true));
      return 0;
    case 'delete':
      show(await api.deleteTrace(cmd.args.trace_id!), (v) => `deleted ${v.trace_id}`);
      return 0;
    case 'discovery':
      show(await api.discovery(), formatDiscovery);
      return 0;
    case 'verify': {
      const report = await runVerify(api, {
        registryUrl: deps.registry?.url ?? '',
        registryToken: deps.registry?.token ?? null,
        keep: o.keep === true,
        progress: (line) => deps.err(line),
      });
      show(report, formatVerify);
      return report.verdicts.every((v) => v.ok) ? EXIT.ok : EXIT.verifyFailed;
    }
    case 'init': {
      if (cmd.args.kind !== 'agent')
        throw new UsageError(`reach init knows "agent", not ${JSON.stringify(cmd.args.kind)}`);
      const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
      const written = await initAgent({
        name: cmd.args.name!,
        ...(str(o.capability) ? { capability: str(o.capability) } : {}),
        ...(str(o.description) ? { description: str(o.description) } : {}),
        ...(str(o.dir) ? { dir: str(o.dir) } : {}),
        force: o.force === true,
      });
      show(written, (w) =>
        [
          ...w.files.map((f) => `wrote ${f}`),
          `run it: REACH_CONTROL_PLANE_URL=http://127.0.0.1:8701 node --import tsx ${w.files[0]}`,
          'then describe it well in declaration.json (description, tags, examples): planners match tasks against them',
        ].join('\n'),
      );
      return 0;
    }
  }
}
