import { isReachError } from '@agent-reach/sdk/protocol';
import { baseUrl, loadConsoleConfig } from '../config.js';
import { ApiClient } from './api-client.js';
import { parseCommandLine } from './args.js';
import { type CommandDeps, runCommand } from './commands.js';
import { COMMANDS, type CommandName, commandHelp, helpText } from './commands-spec.js';
import { EXIT, isUsageError, UsageError } from './usage-error.js';
import { cliVersion } from './version.js';

/** Where the CLI writes and what it calls; tests pass their own. */
export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Wall-clock ms for "ago" columns. @default Date.now */
  now?: () => number;
  watch?: CommandDeps['watch'];
}

/**
 * The `reach` CLI: parses `argv`, calls the APIs, prints tables (or JSON with --json).
 * Resolves with the exit code ({@link EXIT}): 0 done, 1 API error (printed as `code: message`),
 * 2 usage error, 3 a followed run failed, 4 a proposition of `reach verify` failed.
 */
export async function cli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  let command: CommandName | null = null;
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'help') {
      io.out(parsed.command === null ? helpText() : commandHelp(parsed.command));
      return EXIT.ok;
    }
    if (parsed.kind === 'version') {
      io.out(`reach ${cliVersion()} (node ${process.version})`);
      return EXIT.ok;
    }
    command = parsed.command;
    const config = loadConsoleConfig(env);
    const api = new ApiClient({
      registryUrl:
        parsed.registryUrl === undefined ? config.registryUrl : flagUrl(parsed.registryUrl, 'registry'),
      orchestratorUrl:
        parsed.orchestratorUrl === undefined
          ? config.orchestratorUrl
          : flagUrl(parsed.orchestratorUrl, 'orchestrator'),
      apiToken: config.apiToken,
      registryToken: config.registryToken,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    const registryUrl =
      parsed.registryUrl === undefined ? config.registryUrl : flagUrl(parsed.registryUrl, 'registry');
    return await runCommand(parsed, {
      api,
      registry: { url: registryUrl, token: config.registryToken },
      out: io.out,
      err: io.err,
      now: io.now ?? Date.now,
      ...(io.watch ? { watch: io.watch } : {}),
    });
  } catch (error) {
    if (isUsageError(error)) {
      // An option value refused while running names the command's usage too.
      const usage = error.usage ?? (command ? COMMANDS[command].usage : null);
      io.err(`reach: ${error.message}`);
      if (error.hint) io.err(error.hint);
      if (usage) io.err(`usage: ${usage}`);
      return EXIT.usage;
    }
    io.err(
      isReachError(error)
        ? `${error.code}: ${error.message}`
        : `INTERNAL: ${(error as Error)?.message ?? String(error)}`,
    );
    return EXIT.error;
  }
}

/** A `--registry` / `--orchestrator` URL; a bad one is a usage error. */
function flagUrl(value: string, name: 'registry' | 'orchestrator'): string {
  try {
    return baseUrl(value, `--${name}`);
  } catch (error) {
    throw new UsageError(isReachError(error) ? error.message : String(error));
  }
}
