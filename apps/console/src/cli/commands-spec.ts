import type { ParseArgsConfig } from 'node:util';

/** parseArgs' option table (not exported by name from node:util's types). */
type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** One `reach` command: its positional arguments and options. */
export interface CommandSpec {
  /** Positional argument names; a trailing `...name` takes the rest joined by spaces. */
  args: string[];
  options: ParseArgsOptionsConfig;
  usage: string;
  summary: string;
  /** More lines for `reach <command> --help` (options, exit codes). */
  details?: string[];
  /** False for a command that changes something (`--json` then prints the API's answer all the same). */
  read?: boolean;
}

const text = { type: 'string' } as const;

/** Options every command takes. */
export const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  registry: text,
  orchestrator: text,
};

/** Every command of the `reach` CLI. */
export const COMMANDS = {
  agents: {
    args: [],
    options: { state: text, capability: text },
    usage: 'reach agents [--state healthy|suspect|unavailable|deregistered] [--capability c]',
    summary: 'registered instances with state, load and last heartbeat',
  },
  agent: { args: ['instance_id'], options: {}, usage: 'reach agent <instance_id>', summary: 'one instance' },
  declarations: {
    args: ['agent_name'],
    options: {},
    usage: 'reach declarations <agent_name>',
    summary: "an agent's declaration history with change reasons and which versions are verified",
  },
  'verify-version': {
    args: ['agent_name', 'version'],
    options: { reason: text },
    usage: 'reach verify-version <agent_name> <version> [--reason text]',
    summary: 'mark a declaration version verified (routing prefers the newest verified version)',
    details: [
      '--reason text  why the version is trusted (shown in reach declarations)',
      'Needs a registry token with the verify_declarations right, from REACH_REGISTRY_TOKEN.',
    ],
    read: false,
  },
  route: {
    args: ['operation'],
    options: {
      domain: text,
      'input-size': text,
      'max-latency': text,
      'output-format': text,
      'max-candidates': text,
    },
    usage:
      'reach route <operation> [--domain d] [--input-size chars] [--max-latency 2s] [--output-format f] [--max-candidates n]',
    summary: 'ask the registry which agents would serve a need, with score breakdowns',
  },
  conflicts: { args: [], options: {}, usage: 'reach conflicts', summary: 'overlapping declarations' },
  register: {
    args: [],
    options: {
      card: text,
      map: { type: 'string', multiple: true },
      name: text,
      domain: text,
      idempotent: { type: 'boolean' },
    },
    usage:
      'reach register --card <card URL> [--map skill=capability]... [--name n] [--domain d] [--idempotent]',
    summary: "register anyone's A2A agent by its card URL; the registry probes it on its behalf",
    details: [
      '--card URL              the agent card (A2A v1.0), e.g. http://10.0.0.7:9000/.well-known/agent-card.json',
      '--map skill=capability  publish that skill under that capability (repeatable); without it every skill',
      '                        whose id is a capability id is published',
      '--name, --domain        the agent name (default: the card name as a DNS label) and domain (default external)',
      '--idempotent            calls may be re-sent elsewhere after the agent acknowledged them',
      'The registry token comes from REACH_REGISTRY_TOKEN.',
    ],
    read: false,
  },
  zone: {
    args: [],
    options: { output: { type: 'string', short: 'o' } },
    usage: 'reach zone [-o file]',
    summary: 'the live DNS zone file (stdout, or -o file written whole)',
    details: [
      '-o, --output FILE  write the zone to FILE (replaced only once the whole zone arrived)',
      'Redirecting works too: `pnpm -s reach zone > agents.internal.zone` (-s keeps pnpm quiet).',
    ],
  },
  stats: {
    args: [],
    options: {},
    usage: 'reach stats',
    summary: 'routing hit rate, fallback rate, per-instance figures',
  },
  report: {
    args: [],
    options: { window: text },
    usage: 'reach report [--window 7d]',
    summary:
      'the governance report: per-capability hit and fallback rates with their trend, conflicts, declaration changes',
    details: [
      '--window W  1h, 24h, 7d (default), 30d: <n>h or <n>d, at most the registry history retention',
      'Trend: the rate in the later half of the window minus the earlier half, in percentage points.',
      'Flags: hit rate under 70 % or fallback rate over 10 % over at least 20 calls (docs/governance.md).',
    ],
  },
  run: {
    args: ['...task'],
    options: { provider: text, quiet: { type: 'boolean', short: 'q' } },
    usage: 'reach run "<task>" [--provider name] [--quiet]',
    summary: 'run a task and wait for the deliverable (exit 3 when the run failed)',
    details: [
      'Progress goes to stderr: the trace id at once, then each node as it changes state;',
      'stdout gets only the summary (or its JSON), so `reach run … > out.txt` keeps the deliverable.',
      '-q, --quiet  no progress lines',
    ],
    read: false,
  },
  start: {
    args: ['...task'],
    options: { provider: text, watch: { type: 'boolean' } },
    usage: 'reach start "<task>" [--provider name] [--watch]',
    summary: 'start a task and print its trace id (--watch: follow it, exit 3 when it failed)',
    read: false,
  },
  watch: {
    args: ['trace_id'],
    options: { after: text },
    usage: 'reach watch <trace_id> [--after seq]',
    summary: "follow a run's events live (exit 3 when the run failed)",
  },
  traces: {
    args: [],
    options: { status: text, q: text, limit: text, cursor: text },
    usage: 'reach traces [--status ok|degraded|failed|running|aborted] [--q text] [--limit n] [--cursor c]',
    summary: 'recent runs, newest first',
  },
  trace: {
    args: ['trace_id'],
    options: { brief: { type: 'boolean' } },
    usage: 'reach trace <trace_id> [--brief]',
    summary: 'one run: plan, nodes, deliverable and (unless --brief) every event',
  },
  init: {
    args: ['kind', 'name'],
    options: { capability: text, description: text, dir: text, force: { type: 'boolean' } },
    usage: 'reach init agent <name> [--capability id] [--description text] [--dir parent] [--force]',
    summary: 'write a runnable agent skeleton (main.ts) with its declaration (declaration.json)',
    details: [
      '--capability ID    the capability it serves (default: the name with - as _)',
      '--description TEXT what it does, in the words users use: planners match tasks against it',
      '--dir PARENT       where <name>/ goes (default: apps/agent-sdk/examples, where @agent-reach/sdk resolves)',
      '--force            overwrite existing files',
    ],
    read: false,
  },
  delete: {
    args: ['trace_id'],
    options: {},
    usage: 'reach delete <trace_id>',
    summary: 'delete a trace',
    read: false,
  },
  discovery: {
    args: [],
    options: {},
    usage: 'reach discovery',
    summary: "the orchestrator's DNS discovery view",
  },
  verify: {
    args: [],
    options: { keep: { type: 'boolean' } },
    usage: 'reach verify [--keep]',
    summary: "check the seed's propositions V1–V6 on the live system (exit 4 naming each that fails)",
    details: [
      'V1, V2 from two discoveries; V4, V5 from a run of the seed task; V6 from its two look-alike tasks;',
      'V3 registers reach-verify-faulty for every capability (failing every call) and runs the seed task.',
      'Afterwards the faulty agent is deregistered and the verification traces deleted.',
      '--keep  keep the verification traces',
    ],
    read: false,
  },
} satisfies Record<string, CommandSpec>;

/** A command name. */
export type CommandName = keyof typeof COMMANDS;

const GLOBAL_HELP = [
  'global options:',
  '  --json              the API answer as JSON (for scripts; `watch` prints one event per line)',
  '  --registry URL      the registry (default REACH_REGISTRY_URL or the config file)',
  '  --orchestrator URL  the orchestrator (default REACH_ORCHESTRATOR_URL or the config file)',
  '  -h, --help          this help;  reach --version prints the version',
];

const EXIT_HELP =
  'exit codes: 0 done, 1 API error ("code: message"), 2 usage error, 3 a followed run failed or was aborted, 4 a verify proposition failed';

/** The help text: every command with its usage. */
export function helpText(): string {
  const lines = Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.summary}`);
  return [
    'usage: reach <command> [arguments] [options]',
    '',
    'commands:',
    ...lines,
    '',
    ...GLOBAL_HELP,
    '',
    'Tables by default. URLs come from REACH_REGISTRY_URL / REACH_ORCHESTRATOR_URL or REACH_CONFIG.',
    EXIT_HELP,
  ].join('\n');
}

/** `reach <command> --help`. */
export function commandHelp(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  return [
    `usage: ${spec.usage}`,
    `  ${spec.summary}`,
    ...(spec.details ? ['', ...spec.details.map((line) => `  ${line}`)] : []),
    '',
    ...GLOBAL_HELP,
    '',
    EXIT_HELP,
  ].join('\n');
}
