/** Layered DAG execution: binding, per-node attempts along the candidate chain, fault isolation. */
export { bindPlan, candidateRef } from './bind-plan.js';
export { executePlan, type ResumedNodes } from './execute-plan.js';
export { type NodeResume, type NodeRunDeps, nodeRequestId, outputText, runNode } from './node-runner.js';
export { outcomeReport } from './outcome-report.js';
export type {
  AttemptOutcome,
  AttemptReport,
  AttemptRequest,
  CallAttempt,
  NodePatch,
  RunLog,
} from './ports.js';
export { type ResumePoint, resumePoint } from './resume-point.js';
export {
  beginRun,
  type PipelineDeps,
  type RunRequest,
  type RunStart,
  type RunSummary,
  runPipeline,
} from './run-pipeline.js';
export { type SdkCallOptions, sdkCallAttempt } from './sdk-call.js';
