import {
  describeRoute,
  errorResponses,
  headerParameter,
  healthzRoute,
  jsonBody,
  jsonResponse,
  pathParameter,
  queryParameters,
} from '@agent-reach/sdk/http';
import { z } from 'zod';
import { ListTracesQuery } from '../traces/list-query.js';
import { TraceId } from '../traces/trace-id.js';
import { AfterSeq, RunBody } from './schemas.js';
import {
  DeletedWire,
  DiscoveryWire,
  RunSummaryWire,
  StartedWire,
  TraceDetailWire,
  TracePageWire,
} from './wire-schemas.js';

// The OpenAPI description of each orchestrator route, from the schemas the routes validate with and
// the wire schemas of their answers. Routes attach these as their first middleware.

const traceId = pathParameter('id', TraceId, 'The 32-hex trace id (the OpenTelemetry trace id).');
const token = headerParameter(
  'authorization',
  '`Bearer <api token>` when the orchestrator has `api_token` set.',
);
const body = ['BAD_REQUEST', 'INVALID_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE'] as const;

export const DOCS = {
  start: describeRoute({
    tags: ['runs'],
    summary: 'Start a task; answers the trace id at once',
    parameters: [token],
    requestBody: jsonBody(RunBody),
    responses: {
      202: jsonResponse('Started; follow it at /api/stream/{trace_id}.', StartedWire),
      ...errorResponses(...body, 'UNAUTHORIZED', 'OVERLOADED', 'UNAVAILABLE'),
    },
  }),
  run: describeRoute({
    tags: ['runs'],
    summary: 'Run a task and wait for its end',
    parameters: [token],
    requestBody: jsonBody(RunBody),
    responses: {
      200: jsonResponse('The finished run (its status says whether it succeeded).', RunSummaryWire),
      ...errorResponses(...body, 'UNAUTHORIZED', 'OVERLOADED', 'UNAVAILABLE'),
    },
  }),
  stream: describeRoute({
    tags: ['runs'],
    summary: "Follow a run's events (server-sent events)",
    description:
      'Replays the events after `Last-Event-ID` (or `?after=`), then pushes new ones. Each `message` is a trace event (JSON, id = seq); `event: done` carries `{status}` after `trace_finished`; `event: stream_timeout` ends an idle stream.',
    parameters: [
      traceId,
      headerParameter('last-event-id', 'Resume after this seq.'),
      ...queryParameters(z.object({ after: AfterSeq.optional() })),
    ],
    responses: {
      200: {
        description: 'An SSE stream.',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...errorResponses('VALIDATION_FAILED', 'NOT_FOUND'),
    },
  }),
  list: describeRoute({
    tags: ['traces'],
    summary: 'Recent runs, newest first',
    description:
      '`q` searches the task and the summary, and finds a trace by its id or its first digits. `status` may repeat or be comma-separated.',
    parameters: queryParameters(ListTracesQuery),
    responses: {
      200: jsonResponse('One page; pass next_cursor as cursor for the next.', TracePageWire),
      ...errorResponses('VALIDATION_FAILED', 'BAD_REQUEST'),
    },
  }),
  get: describeRoute({
    tags: ['traces'],
    summary: 'One run: plan, nodes and every event',
    parameters: [traceId],
    responses: {
      200: jsonResponse('The trace.', TraceDetailWire),
      ...errorResponses('VALIDATION_FAILED', 'NOT_FOUND'),
    },
  }),
  delete: describeRoute({
    tags: ['traces'],
    summary: 'Delete a run (stopping it first if it is still going)',
    parameters: [traceId, token],
    responses: {
      200: jsonResponse('Deleted.', DeletedWire),
      ...errorResponses('VALIDATION_FAILED', 'UNAUTHORIZED', 'NOT_FOUND'),
    },
  }),
  discovery: describeRoute({
    tags: ['discovery'],
    summary: "The orchestrator's DNS discovery view",
    responses: {
      200: jsonResponse('Capabilities with their candidates and failures.', DiscoveryWire),
      ...errorResponses(),
    },
  }),
  healthz: healthzRoute(),
  readyz: describeRoute({
    tags: ['probes'],
    summary: 'Readiness: the store is open and the process takes runs',
    responses: {
      200: jsonResponse('Ready.', z.object({ status: z.literal('ready') })),
      503: jsonResponse('Not ready.', z.object({ status: z.literal('not_ready') })),
    },
  }),
  metrics: describeRoute({
    tags: ['probes'],
    summary: 'Prometheus metrics',
    responses: {
      200: {
        description: 'Text exposition format.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
  }),
};
