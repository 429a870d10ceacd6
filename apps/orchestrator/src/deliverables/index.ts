/** What a task asks to deliver (seed 1.3), deliverable assembly and the run status rule (seed 3.6). */
export {
  assembleDeliverable,
  DELIVERABLE_CAPS,
  deliverableMarker,
  type MissingCapability,
  missingNote,
  type NodeOutcome,
  nodeOutputMarker,
  runStatus,
} from './assemble.js';
export { hasCodingSignal, hasWritingSignal } from './deliverable-kind.js';
