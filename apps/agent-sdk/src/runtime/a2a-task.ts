import type { Artifact, Message, Part, StreamResponse, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { REACH_CARD_EXTENSION, type ReachFailureMetadata } from '../protocol/index.js';
import type { FinalLine, InvokeExecution, ProgressEvent } from './invoke-execution.js';

const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** Encodes a handler output as artifact parts: string → text, null → none, anything else → data. */
function outputParts(output: unknown): Part[] {
  if (output === null || output === undefined) return [];
  const part: Part = { content: undefined, metadata: undefined, filename: '', mediaType: '' };
  if (typeof output === 'string')
    return [{ ...part, content: { $case: 'text', value: output }, mediaType: 'text/plain' }];
  return [{ ...part, content: { $case: 'data', value: output }, mediaType: 'application/json' }];
}

function agentMessage(
  taskId: string,
  contextId: string,
  text: string,
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: `${taskId}:${Math.random().toString(36).slice(2, 10)}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [
      { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * One A2A task over one execution: its snapshot and its event stream. Every caller that sends the same
 * request_id (messageId) gets this task: the idempotent replay of ARCHITECTURE section 6.
 */
export class A2ATask {
  private state = TaskState.TASK_STATE_WORKING;
  private statusMessage: Message | undefined;
  private artifact: Artifact | undefined;
  private timestamp = new Date().toISOString();
  /** Resolves once the task reached its terminal state (the snapshot already shows it). */
  readonly settled: Promise<void>;

  constructor(
    readonly id: string,
    readonly contextId: string,
    readonly execution: InvokeExecution,
  ) {
    this.settled = execution.outcome.then((line) => this.finish(line));
  }

  /** Whether the task reached a terminal state. */
  get terminal(): boolean {
    return TERMINAL.has(this.state);
  }

  /** The task as `GetTask` answers it (no history: the caller has its own message). */
  snapshot(): Task {
    return {
      id: this.id,
      contextId: this.contextId,
      status: { state: this.state, message: this.statusMessage, timestamp: this.timestamp },
      artifacts: this.artifact ? [this.artifact] : [],
      history: [],
      metadata: undefined,
    };
  }

  /**
   * The stream of one caller: the task snapshot first (the ack), then progress as WORKING status
   * updates, then the output artifact and the terminal status. A caller leaving detaches it; the last
   * one to leave a running task cancels it.
   */
  async *events(follow: boolean, callerGone?: AbortSignal): AsyncGenerator<StreamResponse, void, undefined> {
    if (this.terminal || !follow) {
      yield { payload: { $case: 'task', value: this.snapshot() } };
      return;
    }
    const queue: StreamResponse[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const push = (event: StreamResponse) => {
      queue.push(event);
      wake?.();
      wake = null;
    };
    // Attached before the ack goes out: a caller that leaves before the handler starts cancels it.
    const detach = this.execution.attach((event) => push(this.progressEvent(event)));
    void this.settled.then(() => {
      for (const event of this.finalEvents()) push(event);
      done = true;
      wake?.();
      wake = null;
    });
    // A caller that went away detaches at once, not when the next event would have been written.
    const leave = () => {
      done = true;
      queue.length = 0;
      wake?.();
      wake = null;
    };
    if (callerGone?.aborted) leave();
    callerGone?.addEventListener('abort', leave, { once: true });
    try {
      yield { payload: { $case: 'task', value: this.snapshot() } };
      for (;;) {
        while (queue.length > 0) yield queue.shift() as StreamResponse;
        if (done) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      callerGone?.removeEventListener('abort', leave);
      detach();
    }
  }

  private progressEvent(event: ProgressEvent): StreamResponse {
    const metadata =
      event.fraction === undefined ? undefined : { [REACH_CARD_EXTENSION]: { fraction: event.fraction } };
    return {
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.id,
          contextId: this.contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: agentMessage(this.id, this.contextId, event.message ?? '', metadata),
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        },
      },
    };
  }

  private finalEvents(): StreamResponse[] {
    const events: StreamResponse[] = [];
    if (this.artifact) {
      events.push({
        payload: {
          $case: 'artifactUpdate',
          value: {
            taskId: this.id,
            contextId: this.contextId,
            artifact: this.artifact,
            append: false,
            lastChunk: true,
            metadata: undefined,
          },
        },
      });
    }
    events.push({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.id,
          contextId: this.contextId,
          status: { state: this.state, message: this.statusMessage, timestamp: this.timestamp },
          metadata: undefined,
        },
      },
    });
    return events;
  }

  private finish(line: FinalLine): void {
    this.timestamp = new Date().toISOString();
    if (line.type === 'result') {
      this.state = TaskState.TASK_STATE_COMPLETED;
      this.artifact = {
        artifactId: 'output',
        name: 'output',
        description: '',
        parts: outputParts(line.output),
        metadata: { [REACH_CARD_EXTENSION]: { duration_ms: line.duration_ms } },
        extensions: [],
      };
      return;
    }
    this.state = line.code === 'CANCELLED' ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
    const failure: ReachFailureMetadata = { code: line.code, retryable: line.retryable };
    this.statusMessage = agentMessage(this.id, this.contextId, line.message, {
      [REACH_CARD_EXTENSION]: failure,
    });
  }
}
