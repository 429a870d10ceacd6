import { Declaration, type DeclarationInput, type OperationConstraints } from '@agent-reach/sdk/protocol';
import type { LivenessSnapshot, RoutingLiveness } from '../routing/routing-liveness.js';
import type { InstanceRecord } from '../store/records.js';

/** Options of a test instance: one agent offering operations in a domain. */
export interface TestInstanceOptions {
  agent?: string;
  domain?: string;
  operations?: Record<
    string,
    { constraints?: OperationConstraints; serves?: string[]; idempotent?: boolean }
  >;
  priority?: number;
  substitutable?: boolean;
  idempotent?: boolean;
  port?: number;
  /** Wall-clock registration time. @default 0 (long ago) */
  registeredAt?: number;
  version?: string;
}

/** A stored registration for routing tests (test-only helper). */
export function testInstance(instanceId: string, options: TestInstanceOptions = {}): InstanceRecord {
  const agent = options.agent ?? instanceId.replace(/-[^-]*$/, '');
  const port = options.port ?? 9000;
  const declaration: DeclarationInput = {
    agent_name: agent,
    version: options.version ?? '1',
    domain: options.domain ?? 'text_processing',
    capabilities: options.operations ?? {
      summarize: { constraints: { max_tokens: 5000, response_time_sec: 2 } },
    },
    priority: options.priority ?? 50,
    substitutable: options.substitutable ?? false,
    idempotent: options.idempotent ?? true,
  };
  return {
    instance_id: instanceId,
    agent_name: agent,
    declaration: Declaration.parse(declaration),
    endpoint: { host: '127.0.0.1', port, scheme: 'http', alpn: ['http/1.1'] },
    card_url: `http://127.0.0.1:${port}/.well-known/agent-card.json`,
    card_sha256: 'A'.repeat(43),
    lease_token_hash: 'ab'.repeat(32),
    lease_id: `lease-${instanceId}`,
    registered_at: options.registeredAt ?? 0,
  };
}

/** A hand-set liveness view (test-only helper). */
export class FakeLiveness implements RoutingLiveness {
  readonly states = new Map<string, LivenessSnapshot>();

  snapshot(instanceId: string): LivenessSnapshot | undefined {
    return this.states.get(instanceId);
  }

  set(instanceId: string, snapshot: LivenessSnapshot): void {
    this.states.set(instanceId, snapshot);
  }
}

/** A seeded uniform random source (mulberry32), so weighted draws repeat across runs. */
export function seededRandom(seed = 42): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
