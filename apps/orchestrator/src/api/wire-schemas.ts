// The orchestrator's JSON answers are wire types: their home is the SDK's run wire.
export {
  DeletedWire,
  DiscoveryWire,
  NodeRowWire,
  PlanRowWire,
  RunSummaryWire,
  StartedWire,
  TraceDetailWire,
  TraceEventWire,
  TracePageWire,
  TraceRowWire,
} from '@agent-reach/sdk/protocol';
