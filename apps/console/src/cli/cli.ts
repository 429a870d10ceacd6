import { isReachError } from '@agent-reach/sdk/protocol';
import { baseUrl, loadConsoleConfig } from '../config.js';
import { ApiClient } from './api-client.js';
import { parseCommandLine } from './args.js';
import { type CommandDeps, runCommand } from './commands.js';
import { COMMANDS, helpText } from './commands-spec.js';

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
 * Resolves with the exit code: 0 done, 1 error (printed as `code: message`), 2 a followed run failed.
 */
export async function cli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  try {
    const parsed = parseCommandLine(argv);
    if (parsed.kind === 'help') {
      io.out(
        parsed.command === null
          ? helpText()
          : `usage: ${COMMANDS[parsed.command].usage}\n  ${COMMANDS[parsed.command].summary}`,
      );
      return 0;
    }
    const config = loadConsoleConfig(env);
    const api = new ApiClient({
      registryUrl:
        parsed.registryUrl === undefined ? config.registryUrl : baseUrl(parsed.registryUrl, '--registry'),
      orchestratorUrl:
        parsed.orchestratorUrl === undefined
          ? config.orchestratorUrl
          : baseUrl(parsed.orchestratorUrl, '--orchestrator'),
      apiToken: config.apiToken,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    return await runCommand(parsed, {
      api,
      out: io.out,
      now: io.now ?? Date.now,
      ...(io.watch ? { watch: io.watch } : {}),
    });
  } catch (error) {
    io.err(
      isReachError(error)
        ? `${error.code}: ${error.message}`
        : `INTERNAL: ${(error as Error)?.message ?? String(error)}`,
    );
    return 1;
  }
}
