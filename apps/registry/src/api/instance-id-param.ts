import { ReachError } from '@agent-reach/sdk/protocol';

/** An instance id in a path: a DNS host label. */
const INSTANCE_ID = /^[a-z][a-z0-9-]{1,62}$/;

/** The instance id of a path segment, or VALIDATION_FAILED. */
export function instanceIdParam(value: string | undefined): string {
  if (value === undefined || !INSTANCE_ID.test(value)) {
    throw new ReachError('VALIDATION_FAILED', `invalid instance id: ${JSON.stringify(value)}`);
  }
  return value;
}
