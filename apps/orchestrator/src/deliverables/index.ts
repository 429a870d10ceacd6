/** Deliverable assembly and the run status rule (seed 3.6). */
export {
  assembleDeliverable,
  DELIVERABLE_CAPS,
  deliverableMarker,
  type NodeOutcome,
  nodeOutputMarker,
  runStatus,
} from './assemble.js';
