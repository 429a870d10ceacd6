// A run's and a node's statuses are wire types: their home is the SDK's run wire.
export { NodeStatus, RunOutcome, TraceStatus } from '@agent-reach/sdk/protocol';
