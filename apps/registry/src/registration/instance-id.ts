import { ReachError } from '@agent-reach/sdk/protocol';
import { randomBytesPooled } from '../auth/random-pool.js';

const SHORT_ATTEMPTS = 16;

/**
 * A new instance id `<agent_name>-<4 hex>`, a DNS host label unique among `taken`; when four hex digits
 * keep colliding (thousands of instances of one agent), eight are used.
 */
export function newInstanceId(agentName: string, taken: (instanceId: string) => boolean): string {
  for (let attempt = 0; attempt < SHORT_ATTEMPTS + 8; attempt++) {
    const bytes = attempt < SHORT_ATTEMPTS ? 2 : 4;
    const id = `${agentName}-${randomBytesPooled(bytes).toString('hex')}`;
    if (!taken(id)) return id;
  }
  throw new ReachError('INTERNAL', `could not find a free instance id for ${agentName}`);
}
