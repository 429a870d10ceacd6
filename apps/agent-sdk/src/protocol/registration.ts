import { z } from 'zod';
import { Declaration } from './declaration.js';

/** Where an instance listens. `host` is an IP address: it becomes the A/AAAA record. */
export const Endpoint = z
  .object({
    host: z.union([z.ipv4(), z.ipv6()]),
    port: z.number().int().min(1).max(65_535),
    scheme: z.enum(['http', 'https']).default('http'),
    alpn: z.array(z.string().min(1).max(40)).min(1).max(8).default(['http/1.1']),
  })
  .strict();
export type Endpoint = z.infer<typeof Endpoint>;

/** base64url sha256 of the agent card's exact bytes (DNS-AID cap-sha256). */
// The 43rd character carries only 4 bits of the digest: its low 2 bits must be zero (canonical base64url).
export const CardDigest = z
  .string()
  .regex(/^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/, 'a base64url sha256 (43 chars, canonical)');

/** `POST /v1/agents` body. */
export const RegisterRequest = z
  .object({
    declaration: Declaration,
    endpoint: Endpoint,
    card_sha256: CardDigest,
    /**
     * The registration this one replaces after its lease ran out: the registry gives the instance its
     * old id back when the lease token matches and the id is free, so its history carries over.
     */
    previous: z
      .object({
        instance_id: z.string().min(1).max(63),
        lease_token: z.string().min(1).max(128),
      })
      .strict()
      .optional(),
  })
  .strict();
export type RegisterRequest = z.infer<typeof RegisterRequest>;
export type RegisterRequestInput = z.input<typeof RegisterRequest>;

/** The registry's confirmation of a registration. */
export const RegisterResponse = z.object({
  instance_id: z.string(),
  lease_token: z.string(),
  heartbeat_interval_ms: z.number().int().positive(),
  heartbeat_timeout_ms: z.number().int().positive(),
  declaration_version: z.string(),
});
export type RegisterResponse = z.infer<typeof RegisterResponse>;

/** Load figures an agent reports with each heartbeat. */
export const Load = z
  .object({
    in_flight: z.number().int().min(0).max(1_000_000).default(0),
    capacity: z.number().int().min(1).max(1_000_000).default(1),
    queue: z.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();
export type Load = z.infer<typeof Load>;

/** `POST /v1/agents/{id}/heartbeat` body; the lease token travels as `Authorization: Bearer`. */
export const HeartbeatRequest = z
  .object({
    seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    load: Load.default({ in_flight: 0, capacity: 1, queue: 0 }),
  })
  .strict();
export type HeartbeatRequest = z.infer<typeof HeartbeatRequest>;

/** Liveness states (ARCHITECTURE section 4). */
export const InstanceState = z.enum(['healthy', 'suspect', 'unavailable', 'deregistered']);
export type InstanceState = z.infer<typeof InstanceState>;

/** The answer to an accepted heartbeat. */
export const HeartbeatResponse = z.object({
  status: z.literal('ok'),
  state: InstanceState,
  heartbeat_interval_ms: z.number().int().positive(),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponse>;

/** An instance as the registry lists it. Times are wall-clock ISO strings, for display only. */
export const InstanceView = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  domain: z.string(),
  capabilities: z.array(z.string()),
  declaration_version: z.string(),
  priority: z.number(),
  endpoint: Endpoint,
  card_url: z.string(),
  card_sha256: z.string(),
  /** Registered by card URL; the registry probes it on its behalf. */
  external: z.boolean().optional(),
  state: InstanceState,
  registered_at: z.string(),
  last_heartbeat_at: z.string().nullable(),
  last_seq: z.number().int(),
  load: Load,
});
export type InstanceView = z.infer<typeof InstanceView>;

/** One entry of an agent's declaration history. */
export const DeclarationHistoryEntry = z.object({
  agent_name: z.string(),
  version: z.string(),
  change_reason: z.string().nullable(),
  recorded_at: z.string(),
  /** The registry token (its configured name) whose registration recorded this version; null when open. */
  changed_by: z.string().nullable().default(null),
  declaration: Declaration,
  /** sha256 (hex) of the version's content: the canonical JSON of `declaration` without `change_reason`. */
  content_sha256: z.string().optional(),
  /** Whether the version earned trust: enough successful calls, or an operator marked it. */
  verified: z.boolean().default(false),
  verified_at: z.string().nullable().default(null),
  /** `calls` when verified by its successful calls; else the operator's token name (`open` without tokens). */
  verified_by: z.string().nullable().default(null),
  verified_reason: z.string().nullable().default(null),
  /** Successful calls counted toward verification (counting stops once the version is verified). */
  successful_calls: z.number().int().min(0).default(0),
});
export type DeclarationHistoryEntry = z.infer<typeof DeclarationHistoryEntry>;

/** `POST /v1/declarations/{agent_name}/versions/{version}/verify` body. */
export const VerifyVersionRequest = z
  .object({
    /** Why the operator trusts this version (shown in the history). */
    reason: z.string().min(1).max(500).optional(),
  })
  .strict();
export type VerifyVersionRequest = z.infer<typeof VerifyVersionRequest>;

/** The error body every Agent Reach HTTP API answers with. */
export const ErrorBody = z.object({
  code: z.string(),
  message: z.string(),
  requestId: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
