import type { ConnectionLimits } from '@agent-reach/sdk/node';
import type { ConnectionLimitsConfig } from './reach-config.js';

export type { ConnectionLimits };

/** The limits a config section's `connections` names (durations already in milliseconds). */
export function connectionLimitsOf(section: ConnectionLimitsConfig): ConnectionLimits {
  return {
    idleTimeoutMs: section.idle_timeout,
    headerTimeoutMs: section.header_timeout,
    requestTimeoutMs: section.request_timeout,
    maxConnections: section.max_connections,
    maxRequestsPerConnection: section.max_requests_per_connection,
  };
}
