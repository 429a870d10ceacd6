import { parseArgs } from 'node:util';
import { COMMANDS, type CommandName, type CommandSpec, GLOBAL_OPTIONS } from './commands-spec.js';
import { closest } from './suggest.js';
import { UsageError } from './usage-error.js';

/** A parsed command line. */
export type ParsedArgs =
  | { kind: 'help'; command: CommandName | null }
  | { kind: 'version' }
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
const COMMAND_NAMES = Object.keys(COMMANDS);

/** An unknown command, with the closest known one when there is one. */
function unknownCommand(name: string): UsageError {
  const near = closest(name, COMMAND_NAMES);
  return new UsageError(
    `unknown command ${JSON.stringify(name)}`,
    null,
    near ? `did you mean "reach ${near}"?` : 'see: reach --help',
  );
}

/** Parses `argv` (without node and the script) into a command; a {@link UsageError} names what is wrong. */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const about = rest[0];
    if (about === undefined) return { kind: 'help', command: null };
    if (!isCommand(about)) throw unknownCommand(about);
    return { kind: 'help', command: about };
  }
  if (name === '--version' || name === '-V' || name === 'version') return { kind: 'version' };
  if (!isCommand(name)) throw unknownCommand(name);
  const spec: CommandSpec = COMMANDS[name];
  const optionTable = { ...GLOBAL_OPTIONS, ...spec.options };
  // Not strict: the checks below word the errors, with a suggestion for a mistyped option.
  const { values, positionals, tokens } = parseArgs({
    args: [...rest],
    options: optionTable,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  if (values.help === true) return { kind: 'help', command: name };
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const option = optionTable[token.name];
    if (option === undefined) {
      const near = closest(token.name, Object.keys(optionTable));
      throw new UsageError(
        `unknown option ${token.rawName}`,
        spec.usage,
        near ? `did you mean --${near}?` : null,
      );
    }
    if (option.type === 'string' && token.value === undefined)
      throw new UsageError(`${token.rawName} needs a value`, spec.usage);
    if (option.type === 'boolean' && token.value !== undefined)
      throw new UsageError(`${token.rawName} takes no value`, spec.usage);
  }
  const args: Record<string, string> = {};
  const names: string[] = spec.args;
  for (const [i, arg] of names.entries()) {
    const variadic = arg.startsWith('...');
    const value = variadic ? positionals.slice(i).join(' ').trim() : positionals[i];
    if (value === undefined || value === '')
      throw new UsageError(`missing <${arg.replace('...', '')}>`, spec.usage);
    args[arg.replace('...', '')] = value;
  }
  const last = names.at(-1);
  if (!last?.startsWith('...') && positionals.length > names.length)
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[names.length])}`, spec.usage);
  const options: Record<string, string | boolean | undefined> = {};
  for (const key of Object.keys(spec.options)) options[key] = values[key];
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

/** A whole number option within bounds; a {@link UsageError} naming the option otherwise. */
export function intOption(
  value: string | boolean | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(
      `--${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return n;
}
