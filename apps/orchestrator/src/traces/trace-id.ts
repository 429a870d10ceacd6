import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** A trace id: the 32-hex OpenTelemetry trace id, lower case and not all zeros. */
export const TraceId = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'trace ids are 32 lower-case hex digits')
  .refine((id) => id !== '0'.repeat(32), 'the all-zero trace id is invalid');
export type TraceId = z.infer<typeof TraceId>;

/** A fresh random trace id, valid as an OpenTelemetry trace id. */
export function newTraceId(): TraceId {
  for (;;) {
    const id = randomBytes(16).toString('hex');
    if (id !== '0'.repeat(32)) return id;
  }
}
