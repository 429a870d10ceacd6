// The orchestrator's JSON answers as the CLI reads them: the SDK's run wire types (the console cannot
// import the orchestrator, ARCHITECTURE §1; the orchestrator validates its answers with the same schemas).
export type {
  CandidateView,
  DiscoveryView,
  NodeRowWire as NodeRowView,
  RunSummaryWire as RunSummary,
  TraceDetailWire as TraceDetail,
  TraceEventWire as TraceEventView,
  TracePageWire as TracePage,
  TraceRowWire as TraceRowView,
} from '@agent-reach/sdk/protocol';
