/** Context compaction for upstream outputs (seed 2.8). */
export {
  CONTEXT_BUDGET_TOKENS,
  CONTEXT_PER_NODE_TOKENS,
  type CompactedContext,
  type CompactionDetails,
  type CompactionOptions,
  type ContextItem,
  compactContext,
  MIN_NODE_CHARS,
  PRESERVE_CAPS,
  renderContext,
  SHRINK_RATIO,
  type UpstreamOutput,
} from './compact.js';
export { CJK_CHARS_PER_TOKEN, charCount, estimateTokens, OTHER_CHARS_PER_TOKEN } from './tokens.js';
export { HEAD_SHARE, truncateMiddle, truncateToTokens, truncationMarker } from './truncate.js';
