/** Run ownership through the trace store: leases renewed by their owner, taken over when they lapse. */
export { type OwnedRuns, RunOwnership, type RunOwnershipOptions } from './run-ownership.js';
