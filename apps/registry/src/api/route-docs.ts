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
import {
  AgentName,
  CapabilityId,
  ConflictView,
  DailyConflictReport,
  DeclarationHistoryEntry,
  DeclarationVersion,
  ExternalAgentRequest,
  ExternalAgentResponse,
  GovernanceReport,
  HeartbeatRequest,
  HeartbeatResponse,
  InstanceState,
  InstanceView,
  OutcomeBatch,
  RegisterRequest,
  RegisterResponse,
  RouteQuery,
  RouteResponse,
  RoutingStats,
  VerifyVersionRequest,
} from '@agent-reach/sdk/protocol';
import { z } from 'zod';

// The OpenAPI description of each registry route, beside the schemas the routes validate with, so
// the document at /openapi.json follows the validation. Routes attach these as their first middleware.

const InstanceId = z.string().regex(/^[a-z][a-z0-9-]{1,62}$/);
const instanceId = pathParameter('id', InstanceId, 'The instance id (a DNS host label).');
const authorization = headerParameter('authorization', '`Bearer <lease token>` from the registration.', true);
const registryToken = headerParameter(
  'authorization',
  '`Bearer <registry token>` when the registry requires one.',
);
const fastPath = (what: string) =>
  `Served by a node:http fast path in front of hono (same contract, validation and errors: ${what}).`;
const body = ['BAD_REQUEST', 'INVALID_JSON', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE'] as const;

/** `GET /v1/agents` query. */
export const ListQuery = z
  .object({
    capability: CapabilityId.optional(),
    state: InstanceState.optional(),
    agent_name: AgentName.optional(),
  })
  .strict();

/** `GET /v1/conflicts` query. */
export const ConflictsQuery = z
  .object({
    report: z.literal('daily').optional(),
    date: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'date is yyyy-mm-dd')
      .optional(),
  })
  .strict();

/** `GET /v1/reports/governance` query. */
export const GovernanceReportQuery = z
  .object({
    window: z
      .string()
      .max(8)
      .default('7d')
      .describe('`<n>h` or `<n>d` (1h, 24h, 7d, 30d), at most the route history retention. Default 7d.'),
  })
  .strict();

export const DOCS = {
  registerExternal: describeRoute({
    tags: ['agents'],
    summary: "Register anyone's A2A agent by its card URL",
    description:
      'Fetches the A2A v1.0 card (3 s, 256 KiB, no redirects), maps its skills to capability ids, registers ' +
      'it under a lease and probes the card every heartbeat interval on its behalf: the same bytes are a ' +
      'heartbeat, no answer is a missed one, a changed card drops the agent from DNS (docs/calling.md).',
    parameters: [registryToken],
    requestBody: jsonBody(ExternalAgentRequest),
    responses: {
      201: jsonResponse(
        'Registered and probed: instance id, published capabilities, the A2A interface.',
        ExternalAgentResponse,
      ),
      ...errorResponses(
        ...body,
        'UNAUTHORIZED',
        'FORBIDDEN',
        'CARD_UNREACHABLE',
        'CARD_INVALID',
        'CARD_TOO_LARGE',
        'NO_USABLE_SKILL',
        'CONFLICT',
        'UNKNOWN_CAPABILITY',
        'STORE_UNAVAILABLE',
      ),
    },
  }),
  register: describeRoute({
    tags: ['agents'],
    summary: 'Register an agent instance',
    description:
      'Publishes the instance in DNS and grants a lease. A declaration version is immutable: the same ' +
      '(agent_name, version) with other content (the canonical declaration without change_reason) is ' +
      'refused with 409 DECLARATION_VERSION_CHANGED; a second or later version needs change_reason ' +
      `(422 CHANGE_REASON_REQUIRED). ${fastPath('docs/registry.md')}`,
    parameters: [registryToken],
    requestBody: jsonBody(RegisterRequest),
    responses: {
      201: jsonResponse('Registered: the instance id, lease token and heartbeat interval.', RegisterResponse),
      ...errorResponses(
        ...body,
        'UNAUTHORIZED',
        'FORBIDDEN',
        'NAME_OWNED',
        'CONFLICT',
        'DECLARATION_VERSION_CHANGED',
        'CHANGE_REASON_REQUIRED',
        'INVALID_DECLARATION',
        'UNKNOWN_CAPABILITY',
        'INVALID_SVCB',
        'STORE_UNAVAILABLE',
        'UNAVAILABLE',
        'OVERLOADED',
      ),
    },
  }),
  heartbeat: describeRoute({
    tags: ['agents'],
    summary: 'Heartbeat with load',
    description: `Keeps the lease alive and reports load. ${fastPath('docs/registry.md')}`,
    parameters: [instanceId, authorization],
    requestBody: jsonBody(HeartbeatRequest),
    responses: {
      200: jsonResponse('Accepted; the next interval.', HeartbeatResponse),
      ...errorResponses(
        ...body,
        'LEASE_TOKEN_INVALID',
        'UNAUTHORIZED',
        'UNKNOWN_INSTANCE',
        'STALE_HEARTBEAT',
        'STORE_UNAVAILABLE',
        'UNAVAILABLE',
        'OVERLOADED',
      ),
    },
  }),
  deregister: describeRoute({
    tags: ['agents'],
    summary: 'Deregister an instance',
    parameters: [instanceId, authorization],
    responses: {
      200: jsonResponse(
        'Removed from DNS and the registry.',
        z.object({ instance_id: z.string(), state: z.literal('deregistered') }),
      ),
      ...errorResponses(
        'VALIDATION_FAILED',
        'LEASE_TOKEN_INVALID',
        'UNAUTHORIZED',
        'UNKNOWN_INSTANCE',
        'STORE_UNAVAILABLE',
      ),
    },
  }),
  list: describeRoute({
    tags: ['agents'],
    summary: 'List instances',
    parameters: queryParameters(ListQuery),
    responses: {
      200: jsonResponse('Every matching instance.', z.object({ instances: z.array(InstanceView) })),
      ...errorResponses('VALIDATION_FAILED'),
    },
  }),
  get: describeRoute({
    tags: ['agents'],
    summary: 'One instance',
    parameters: [instanceId],
    responses: {
      200: jsonResponse('The instance.', InstanceView),
      ...errorResponses('VALIDATION_FAILED', 'UNKNOWN_INSTANCE'),
    },
  }),
  declarations: describeRoute({
    tags: ['agents'],
    summary: "An agent's declaration history",
    parameters: [pathParameter('agent_name', AgentName, 'The agent name.')],
    responses: {
      200: jsonResponse(
        'Every declaration version, oldest first, with the reason for each change and whether it is verified.',
        z.object({ agent_name: z.string(), history: z.array(DeclarationHistoryEntry) }),
      ),
      ...errorResponses('VALIDATION_FAILED', 'NOT_FOUND', 'STORE_UNAVAILABLE'),
    },
  }),
  verifyVersion: describeRoute({
    tags: ['agents'],
    summary: 'Mark a declaration version verified',
    description:
      'An operator vouches for a recorded version (otherwise it is verified after ' +
      '`control_plane.declarations.verify_after_calls` successful calls); routing prefers the newest ' +
      'verified version. With registry tokens configured, needs one with the verify_declarations right. ' +
      'A version already verified stays as it was.',
    parameters: [
      pathParameter('agent_name', AgentName, 'The agent name.'),
      pathParameter('version', DeclarationVersion, 'The declaration version.'),
      registryToken,
    ],
    requestBody: jsonBody(VerifyVersionRequest),
    responses: {
      200: jsonResponse('The version history entry, verified.', DeclarationHistoryEntry),
      ...errorResponses(...body, 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'STORE_UNAVAILABLE'),
    },
  }),
  route: describeRoute({
    tags: ['routing'],
    summary: 'Which agents would serve a need',
    description: `Filters, scores (with a breakdown per candidate) and orders candidates. ${fastPath('docs/registry.md')}`,
    requestBody: jsonBody(RouteQuery),
    responses: {
      200: jsonResponse('Candidates, best first.', RouteResponse),
      ...errorResponses(...body, 'NO_CANDIDATES', 'UNKNOWN_CAPABILITY'),
    },
  }),
  outcomes: describeRoute({
    tags: ['routing'],
    summary: 'Report call outcomes',
    description:
      'With registry tokens configured, needs one with the report_outcomes right; each caller (token) has its own window per instance, and one caller moves a success rate only within `control_plane.outcomes.caller_share`.',
    parameters: [registryToken],
    requestBody: jsonBody(OutcomeBatch),
    responses: {
      202: jsonResponse('Recorded.', z.object({ accepted: z.number().int(), ignored: z.number().int() })),
      ...errorResponses(...body, 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  }),
  conflicts: describeRoute({
    tags: ['routing'],
    summary: 'Overlapping declarations (or the daily report)',
    parameters: queryParameters(ConflictsQuery),
    responses: {
      200: jsonResponse(
        'The live conflicts, or with report=daily the day’s report.',
        z.union([z.object({ conflicts: z.array(ConflictView) }), DailyConflictReport]),
      ),
      ...errorResponses('VALIDATION_FAILED', 'NOT_FOUND'),
    },
  }),
  stats: describeRoute({
    tags: ['routing'],
    summary: 'Routing hit rate, fallback rate and per-instance figures',
    responses: { 200: jsonResponse('Routing statistics.', RoutingStats), ...errorResponses() },
  }),
  governance: describeRoute({
    tags: ['governance'],
    summary: 'The governance report (seed article 6.3)',
    description:
      'Over a window ending with the current hour: conflicts seen (daily conflict reports of the days it ' +
      'touches, and live ones), declaration versions recorded with their change reasons, and per capability ' +
      'the route hit rate and fallback rate from the durable hourly route history, with their trend (later ' +
      'half of the window against the earlier half) and an hourly or daily series (docs/governance.md).',
    parameters: queryParameters(GovernanceReportQuery),
    responses: {
      200: jsonResponse('The report.', GovernanceReport),
      ...errorResponses('VALIDATION_FAILED', 'STORE_UNAVAILABLE'),
    },
  }),
  zone: describeRoute({
    tags: ['dns'],
    summary: 'The live DNS zone file',
    description:
      'RFC 1035 zone file text, streamed from a copy of the zone frozen at one serial, which the `X-Zone-Serial` header carries.',
    responses: {
      200: { description: 'The zone file.', content: { 'text/plain': { schema: { type: 'string' } } } },
      ...errorResponses('UNAVAILABLE'),
    },
  }),
  healthz: healthzRoute(),
  readyz: describeRoute({
    tags: ['probes'],
    summary: 'Readiness: store reachable, cache primed',
    responses: {
      200: jsonResponse(
        'Ready.',
        z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.boolean()) }),
      ),
      ...errorResponses('UNAVAILABLE'),
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
