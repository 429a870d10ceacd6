import { z } from 'zod';

/** `POST /v1/invoke` body. `request_id` is also the idempotency key. */
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

/** The first NDJSON line: the agent accepted the request and started it. */
export const AckLine = z.object({
  type: z.literal('ack'),
  request_id: z.string(),
  instance_id: z.string().optional(),
  replay: z.boolean().optional(),
});
/** Optional progress lines between ack and the final line. */
export const ProgressLine = z.object({
  type: z.literal('progress'),
  request_id: z.string(),
  message: z.string().optional(),
  fraction: z.number().min(0).max(1).optional(),
});
/** The final line of a successful call. */
export const ResultLine = z.object({
  type: z.literal('result'),
  request_id: z.string(),
  output: z.unknown(),
  duration_ms: z.number().min(0),
});
/** The final line of a failed call. */
export const ErrorLine = z.object({
  type: z.literal('error'),
  request_id: z.string(),
  code: z.string(),
  message: z.string(),
  retryable: z.boolean(),
});

/** Any NDJSON line of an invoke stream. */
export const InvokeLine = z.discriminatedUnion('type', [AckLine, ProgressLine, ResultLine, ErrorLine]);
export type InvokeLine = z.infer<typeof InvokeLine>;
export type AckLine = z.infer<typeof AckLine>;
export type ResultLine = z.infer<typeof ResultLine>;
export type ErrorLine = z.infer<typeof ErrorLine>;

/** The W3C trace-context header that joins an agent's server span to the caller's trace. */
export const TRACEPARENT_HEADER = 'traceparent';
