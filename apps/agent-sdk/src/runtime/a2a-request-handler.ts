import { randomUUID } from 'node:crypto';
import type {
  AgentCard as A2ACard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  Message,
  Part,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  A2AError,
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { Clock } from '../clock/index.js';
import {
  ERROR_HTTP_STATUS,
  type ErrorCode,
  InvokeRequest,
  REACH_CARD_EXTENSION,
  ReachMessageMetadata,
} from '../protocol/index.js';
import { A2ATask } from './a2a-task.js';
import type { InvokeExecution } from './invoke-execution.js';
import type { InvokeService } from './invoke-service.js';
import { type LedgerLimits, RequestLedger } from './request-ledger.js';

/** ServerCallContext state keys the HTTP bindings fill in. */
export const CALL_STATE = { traceparent: 'reach.traceparent', callerGone: 'reach.callerGone' } as const;

/**
 * An admission refusal in our terms (OVERLOADED, UNAVAILABLE, UNKNOWN_CAPABILITY, …) as an A2A error;
 * its `ErrorInfo` carries our code as `reason` and as `metadata.code`.
 */
export class ReachCallError extends A2AError {
  override readonly reason: string;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super({ message, metadata: { code } });
    this.code = code;
    this.reason = code;
  }

  /** The HTTP status of this refusal. */
  get httpStatus(): number {
    return ERROR_HTTP_STATUS[this.code];
  }
}

function partValue(part: Part): unknown {
  const content = part.content;
  if (content === undefined) return null;
  if (content.$case === 'raw') return content.value.toString('base64');
  return content.value;
}

/** The call's input: one part's content, several parts' contents as an array, no part → null. */
function inputOf(message: Message): unknown {
  if (message.parts.length === 0) return null;
  if (message.parts.length === 1) return partValue(message.parts[0] as Part);
  return message.parts.map(partValue);
}

/** What the handler is built from. */
export interface A2AHandlerDeps {
  service: InvokeService;
  /** The served card in the SDK's form; null until the agent knows its port. */
  card: () => A2ACard | null;
  clock: Clock;
  ledger: LedgerLimits;
}

/**
 * The A2A request handler of an SDK agent, over the invoke service: a message is one call (its
 * `messageId` is the request_id), a task is one execution. The SDK's transport handlers and our hono
 * bindings call it.
 */
export class ReachA2AHandler implements A2ARequestHandler {
  private readonly tasks: RequestLedger<A2ATask>;
  private readonly byExecution = new WeakMap<InvokeExecution, A2ATask>();

  constructor(private readonly deps: A2AHandlerDeps) {
    this.tasks = new RequestLedger(deps.ledger, deps.clock);
  }

  async getAgentCard(): Promise<A2ACard> {
    const card = this.deps.card();
    if (!card) throw new ReachCallError('UNAVAILABLE', 'the agent is starting');
    return card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<A2ACard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const task = this.admit(params, context);
    if (params.configuration?.returnImmediately) return task.snapshot();
    for await (const _ of task.events(true, callerGone(context))) {
      // Blocking send: wait for the terminal state, then answer with the task.
    }
    return task.snapshot();
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const task = this.admit(params, context);
    yield* task.events(true, callerGone(context));
  }

  async getTask(params: GetTaskRequest): Promise<Task> {
    return this.task(params.id).snapshot();
  }

  async cancelTask(params: CancelTaskRequest): Promise<Task> {
    const task = this.task(params.id);
    if (task.terminal) throw new TaskNotCancelableError(`task ${params.id} has already ended`);
    task.execution.abort(new DOMException('the caller cancelled the task', 'AbortError'), 'CANCELLED');
    await task.settled;
    return task.snapshot();
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    yield* this.task(params.id).events(true, callerGone(context));
  }

  async listTasks(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('ListTasks is not offered by Agent Reach agents');
  }

  async createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  private task(id: string): A2ATask {
    const task = id ? this.tasks.get(id) : undefined;
    if (!task) throw new TaskNotFoundError(`no task ${JSON.stringify(id)} (unknown or expired)`);
    return task;
  }

  /** Validates the message, then admits it as a call or finds the task its request_id already has. */
  private admit(params: SendMessageRequest, context: ServerCallContext): A2ATask {
    const message = params.message;
    if (!message?.messageId) throw new RequestMalformedError('message.messageId is required');
    const reach = message.metadata?.[REACH_CARD_EXTENSION] ?? params.metadata?.[REACH_CARD_EXTENSION] ?? {};
    const metadata = ReachMessageMetadata.safeParse(reach);
    if (!metadata.success) {
      const detail = metadata.error.issues.map(
        (i: { path: PropertyKey[]; message: string }) => `${i.path.join('.') || '(metadata)'}: ${i.message}`,
      );
      throw new RequestMalformedError(`invalid ${REACH_CARD_EXTENSION} metadata: ${detail.join('; ')}`);
    }
    const request = InvokeRequest.safeParse({
      request_id: message.messageId,
      input: inputOf(message),
      ...metadata.data,
    });
    if (!request.success) {
      const detail = request.error.issues.map((i) => `${i.path.join('.') || '(message)'}: ${i.message}`);
      throw new RequestMalformedError(`invalid message: ${detail.join('; ')}`);
    }
    const traceparent = context.state.get(CALL_STATE.traceparent) as string | undefined;
    const admitted = this.deps.service.admit(request.data, traceparent);
    if (!admitted.ok) throw new ReachCallError(admitted.error.code, admitted.error.message);
    const { execution, replay } = admitted.value;
    const known = this.byExecution.get(execution);
    if (replay && known) return known;
    const task = new A2ATask(randomUUID(), message.contextId || randomUUID(), execution);
    this.byExecution.set(execution, task);
    this.tasks.add(task.id, task);
    void task.settled.then(() => this.tasks.finish(task.id, task));
    // Start on the next macrotask so the ack is written before a CPU-bound handler takes the thread.
    if (!replay) setImmediate(() => execution.start());
    return task;
  }
}

function callerGone(context: ServerCallContext): AbortSignal | undefined {
  return context.state.get(CALL_STATE.callerGone) as AbortSignal | undefined;
}
