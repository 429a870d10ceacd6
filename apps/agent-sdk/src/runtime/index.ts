/** The agent side of Agent Reach: AgentRuntime, its handler types and building blocks. */
export type { HealthStatus, HealthView } from './agent-app.js';
export { AgentRuntime, type RuntimeRegistration } from './agent-runtime.js';
export { type BackoffPolicy, backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
export { exitCannotStart } from './cannot-start.js';
export { type CardDocument, cardDocument, etagMatches } from './card-document.js';
export { type DeclarationSource, loadDeclaration } from './declaration-file.js';
export { type EntrypointMethod, entrypoint } from './entrypoint.js';
export type { InvokeContext, InvokeHandler, InvokeHook, InvokeInfo } from './invoke-context.js';
export {
  consoleLogger,
  fromPino,
  type LogFields,
  type Logger,
  type PinoLike,
  silentLogger,
} from './logger.js';
export { INVOKE_SPAN_NAME, otelInvokeHook, parseTraceparent } from './otel-invoke-hook.js';
export type { LedgerLimits } from './request-ledger.js';
export type { AgentRuntimeOptions } from './runtime-options.js';
