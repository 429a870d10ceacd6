import { A2ATarget, Declaration, Endpoint } from '@agent-reach/sdk/protocol';
import { z } from 'zod';

/** A live registration as stored under `/reach/instances/<id>`, bound to the instance's lease. */
export const InstanceRecord = z.object({
  instance_id: z.string(),
  agent_name: z.string(),
  declaration: Declaration,
  endpoint: Endpoint,
  card_url: z.string(),
  card_sha256: z.string(),
  /** Where an agent not built with the SDK takes A2A calls (absent: the SDK agent's JSON-RPC path). */
  a2a: A2ATarget.optional(),
  /** Registered by card URL (`POST /v1/agents/external`); the registry probes it on its behalf. */
  external: z.boolean().optional(),
  /** sha256 (hex) of the lease token: the token itself is never stored. */
  lease_token_hash: z.string(),
  lease_id: z.string(),
  /** Wall-clock milliseconds, for display only. */
  registered_at: z.number(),
});
export type InstanceRecord = z.infer<typeof InstanceRecord>;

/** A declaration version's verification as stored under `/reach/verified/<agent>/<version>` (never leased). */
export const VersionVerification = z.object({
  agent_name: z.string(),
  version: z.string(),
  /** Wall-clock ISO time. */
  verified_at: z.string(),
  /** `calls` (enough successful calls) or the operator's token name (`open` without tokens). */
  verified_by: z.string(),
  reason: z.string(),
});
export type VersionVerification = z.infer<typeof VersionVerification>;
