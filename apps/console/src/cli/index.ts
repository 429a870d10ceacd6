/** The `reach` CLI as a library: the API client, argument parsing and the command runner. */
export { ApiClient, type ApiClientOptions } from './api-client.js';
export { type ParsedArgs, parseCommandLine } from './args.js';
export { type CliIo, cli } from './cli.js';
export { COMMANDS, type CommandSpec, commandHelp, helpText } from './commands-spec.js';
export { EXIT, isUsageError, UsageError } from './usage-error.js';
export { type WatchOptions, watchTrace } from './watch.js';
