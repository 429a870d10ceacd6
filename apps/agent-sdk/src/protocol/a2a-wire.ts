import { z } from 'zod';
import { REACH_CARD_EXTENSION } from './card.js';
import type { InvokeRequest } from './invoke.js';

/** Task states as A2A v1.0 spells them in JSON. */
export const TASK_STATE = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  inputRequired: 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  authRequired: 'TASK_STATE_AUTH_REQUIRED',
} as const;

/** States after which a task never changes; INPUT/AUTH_REQUIRED also end a call (we cannot answer them). */
export const FINAL_TASK_STATES: ReadonlySet<string> = new Set([
  TASK_STATE.completed,
  TASK_STATE.failed,
  TASK_STATE.canceled,
  TASK_STATE.rejected,
  TASK_STATE.inputRequired,
  TASK_STATE.authRequired,
]);

/** The truly terminal states (A2A: a task in one of them can never be cancelled or resumed). */
export const TERMINAL_TASK_STATES: ReadonlySet<string> = new Set([
  TASK_STATE.completed,
  TASK_STATE.failed,
  TASK_STATE.canceled,
  TASK_STATE.rejected,
]);

/**
 * What an Agent Reach caller puts in `message.metadata[REACH_CARD_EXTENSION]`. The request_id itself is
 * the message's `messageId`; agents that do not know the extension ignore the metadata.
 */
export const ReachMessageMetadata = z
  .object({
    /** The operation to run; defaults to the agent's only operation. */
    capability: z.string().max(40).optional(),
    /** Context prepared by the caller (e.g. compacted upstream outputs). */
    context: z.unknown().optional(),
    /** Milliseconds the caller will wait for the result, from the moment it sent the request. */
    deadline_ms: z.number().int().positive().max(86_400_000).optional(),
    caller: z.string().max(120).optional(),
  })
  .strict();
export type ReachMessageMetadata = z.infer<typeof ReachMessageMetadata>;

/** What our agents put in a failed task's `status.message.metadata[REACH_CARD_EXTENSION]`. */
export const ReachFailureMetadata = z.object({ code: z.string(), retryable: z.boolean() });
export type ReachFailureMetadata = z.infer<typeof ReachFailureMetadata>;

/** A part in A2A v1.0 JSON (one of text, data, url, raw). */
export type PartJson =
  | { text: string; mediaType?: string }
  | { data: unknown; mediaType?: string }
  | { url: string; mediaType?: string }
  | { raw: string; mediaType?: string };

/** Encodes a value as message/artifact parts: a string as text, null as no part, anything else as data. */
export function partsOf(value: unknown): PartJson[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [{ text: value, mediaType: 'text/plain' }];
  return [{ data: value, mediaType: 'application/json' }];
}

/** Decodes parts back to one value: none → null, one → its content, several → the array of contents. */
export function valueOfParts(parts: readonly unknown[] | undefined): unknown {
  if (!parts || parts.length === 0) return null;
  const values = parts.map((part) => {
    const p = part as Record<string, unknown>;
    if ('text' in p) return p.text;
    if ('data' in p) return p.data;
    if ('url' in p) return p.url;
    return p.raw ?? null;
  });
  return values.length === 1 ? values[0] : values;
}

/** The `SendMessageRequest` params for one of our calls (`request_id` travels as `messageId`). */
export function sendMessageParams(request: InvokeRequest): Record<string, unknown> {
  const reach: ReachMessageMetadata = {};
  if (request.capability !== undefined) reach.capability = request.capability;
  if (request.context !== undefined) reach.context = request.context;
  if (request.deadline_ms !== undefined) reach.deadline_ms = request.deadline_ms;
  if (request.caller !== undefined) reach.caller = request.caller;
  return {
    message: {
      messageId: request.request_id,
      role: 'ROLE_USER',
      parts: partsOf(request.input),
      metadata: { [REACH_CARD_EXTENSION]: reach },
      extensions: [REACH_CARD_EXTENSION],
    },
  };
}
