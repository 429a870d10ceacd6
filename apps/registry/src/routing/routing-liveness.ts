import type { InstanceState, Load } from '@agent-reach/sdk/protocol';

/** What routing needs to know about one instance's liveness on this replica. */
export interface LivenessSnapshot {
  state: InstanceState;
  /** The load of the last accepted heartbeat; absent before the first one. */
  load?: Load;
  /**
   * Monotonic milliseconds of the registration (the earlier of this replica's first sight and the
   * record's wall-clock time, turned monotonic once); drives the warm-up ramp.
   */
  registeredAt?: number;
}

/**
 * The replica-local liveness state routing reads (the registry's LivenessTable implements it).
 * Instances it does not know are treated as healthy with unknown load: the lease is the truth.
 * States are read on every answer, cached ones included.
 */
export interface RoutingLiveness {
  /** `now`: the monotonic time to judge at (a weight pass reads 100,000 instances at one time). */
  snapshot(instanceId: string, now?: number): LivenessSnapshot | undefined;
}

/** A liveness view that knows nothing (every instance healthy, load unknown). */
export const unknownLiveness: RoutingLiveness = { snapshot: () => undefined };
