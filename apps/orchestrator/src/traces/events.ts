import type { TraceEventInput } from '@agent-reach/sdk/protocol';
import type { z } from 'zod';

// The event payloads are wire types: their home is the SDK's run wire.
export {
  EventError,
  eventPayloadSchema,
  TRACE_EVENT_TYPES,
  TraceEventInput,
  type TraceEventType,
} from '@agent-reach/sdk/protocol';

/** A stored event: numbered 1, 2, 3, … within its trace. */
export type TraceEvent = z.output<typeof TraceEventInput> & { trace_id: string; seq: number; at: Date };
