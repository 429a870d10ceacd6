import { z } from 'zod';

/**
 * One call in our terms, as an A2A message carries it (ARCHITECTURE section 6): `request_id` is the
 * message's `messageId` and the idempotency key, the rest travels in the message and its metadata.
 */
export const InvokeRequest = z
  .object({
    request_id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'request_id: 1-128 of [A-Za-z0-9._:-]'),
    /** The operation to run; defaults to the agent's only operation. */
    capability: z.string().max(40).optional(),
    input: z.unknown(),
    /** Context prepared by the caller (e.g. compacted upstream outputs). */
    context: z.unknown().optional(),
    /** Milliseconds the caller will wait for the result, from the moment it sent the request. */
    deadline_ms: z.number().int().positive().max(86_400_000).optional(),
    caller: z.string().max(120).optional(),
  })
  .strict();
export type InvokeRequest = z.infer<typeof InvokeRequest>;
export type InvokeRequestInput = z.input<typeof InvokeRequest>;

/** How an execution ended well (the agent turns it into a COMPLETED task with an output artifact). */
export const ResultLine = z.object({
  type: z.literal('result'),
  request_id: z.string(),
  output: z.unknown(),
  duration_ms: z.number().min(0),
});
/** How an execution failed (the agent turns it into a FAILED or CANCELED task carrying the code). */
export const ErrorLine = z.object({
  type: z.literal('error'),
  request_id: z.string(),
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
});

export type ResultLine = z.infer<typeof ResultLine>;
export type ErrorLine = z.infer<typeof ErrorLine>;

/** The W3C trace-context header that joins an agent's server span to the caller's trace. */
export const TRACEPARENT_HEADER = 'traceparent';
