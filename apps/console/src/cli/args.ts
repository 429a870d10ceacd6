import { parseArgs } from 'node:util';
import { ReachError } from '@agent-reach/sdk/protocol';
import { COMMANDS, type CommandName, GLOBAL_OPTIONS } from './commands-spec.js';

/** A parsed command line. */
export type ParsedArgs =
  | { kind: 'help'; command: CommandName | null }
  | {
      kind: 'command';
      command: CommandName;
      args: Record<string, string>;
      options: Record<string, string | boolean | undefined>;
      json: boolean;
      registryUrl?: string;
      orchestratorUrl?: string;
    };

const isCommand = (name: string): name is CommandName => Object.hasOwn(COMMANDS, name);

/** Parses `argv` (without node and the script) into a command; BAD_REQUEST names what is wrong. */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const about = rest[0];
    return { kind: 'help', command: about !== undefined && isCommand(about) ? about : null };
  }
  if (!isCommand(name))
    throw new ReachError('BAD_REQUEST', `unknown command ${JSON.stringify(name)} (try: reach help)`);
  const spec = COMMANDS[name];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: { ...GLOBAL_OPTIONS, ...spec.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (cause) {
    throw new ReachError('BAD_REQUEST', `${(cause as Error).message}; usage: ${spec.usage}`, { cause });
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { kind: 'help', command: name };
  const args: Record<string, string> = {};
  const names: string[] = spec.args;
  for (const [i, arg] of names.entries()) {
    const variadic = arg.startsWith('...');
    const value = variadic ? positionals.slice(i).join(' ').trim() : positionals[i];
    if (value === undefined || value === '')
      throw new ReachError('BAD_REQUEST', `missing <${arg.replace('...', '')}>; usage: ${spec.usage}`);
    args[arg.replace('...', '')] = value;
  }
  const last = names.at(-1);
  if (!last?.startsWith('...') && positionals.length > names.length)
    throw new ReachError(
      'BAD_REQUEST',
      `unexpected argument ${JSON.stringify(positionals[names.length])}; usage: ${spec.usage}`,
    );
  const options: Record<string, string | boolean | undefined> = {};
  for (const key of Object.keys(spec.options)) options[key] = values[key] as string | boolean | undefined;
  return {
    kind: 'command',
    command: name,
    args,
    options,
    json: values.json === true,
    ...(typeof values.registry === 'string' ? { registryUrl: values.registry } : {}),
    ...(typeof values.orchestrator === 'string' ? { orchestratorUrl: values.orchestrator } : {}),
  };
}

/** A whole number option within bounds; BAD_REQUEST naming the option otherwise. */
export function intOption(
  value: string | boolean | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new ReachError(
      'BAD_REQUEST',
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}
