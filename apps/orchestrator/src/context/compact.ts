import { charCount, estimateTokens } from './tokens.js';
import { truncateMiddle, truncateToTokens } from './truncate.js';

/** Token budget for all upstream context one node receives (seed 2.8). */
export const CONTEXT_BUDGET_TOKENS = 1800;
/** Token cap for one ordinary upstream node (seed 2.8). */
export const CONTEXT_PER_NODE_TOKENS = 320;
/** Capabilities whose output is the deliverable itself: capped at the whole budget, never dropped. */
export const PRESERVE_CAPS: ReadonlySet<string> = new Set(['writing', 'implementation']);
/** Each total-budget round shrinks the longest ordinary node to this share of its length. */
export const SHRINK_RATIO = 0.6;
/** Below this many characters an ordinary node is dropped rather than shrunk further. */
export const MIN_NODE_CHARS = 120;

/** One upstream node's output, in plan order (earliest first). */
export interface UpstreamOutput {
  node_id: string;
  capability: string;
  output: string;
}

/** The context one upstream node contributes after compaction. */
export interface ContextItem {
  node_id: string;
  capability: string;
  text: string;
  original_chars: number;
  kept_chars: number;
  truncated: boolean;
  preserved: boolean;
}

/** What compaction did, as recorded in the `context_compacted` event. */
export interface CompactionDetails {
  original_chars: number;
  kept_chars: number;
  dropped: string[];
  truncated: string[];
  estimated_tokens: number;
  budget_tokens: number;
  /** True when the context is still over budget because deliverable text is never cut below its cap. */
  over_budget_due_to_deliverable: boolean;
}

/** The compacted context: kept items in plan order, and the details. */
export interface CompactedContext {
  items: ContextItem[];
  compaction: CompactionDetails;
}

/** Budgets; defaults are the seed's. */
export interface CompactionOptions {
  /** @default CONTEXT_BUDGET_TOKENS */
  budgetTokens?: number;
  /** @default CONTEXT_PER_NODE_TOKENS */
  perNodeTokens?: number;
  /** @default PRESERVE_CAPS */
  preserveCaps?: ReadonlySet<string>;
}

interface Working extends ContextItem {
  original: string;
  dropped: boolean;
}

/**
 * Compacts upstream outputs (seed 2.8): each node cut to its cap (head 65 % + marker + tail), then,
 * while over the total budget, the longest ordinary node shrinks to 60 %; once ordinary nodes are at
 * 120 characters the earliest one is dropped. Deliverables (writing, implementation) are capped at the
 * whole budget and never shrunk further or dropped, so they may leave the context over budget.
 */
export function compactContext(
  upstream: readonly UpstreamOutput[],
  options: CompactionOptions = {},
): CompactedContext {
  const budget = options.budgetTokens ?? CONTEXT_BUDGET_TOKENS;
  const perNode = options.perNodeTokens ?? CONTEXT_PER_NODE_TOKENS;
  const preserve = options.preserveCaps ?? PRESERVE_CAPS;
  const items: Working[] = upstream.map((u) => {
    const preserved = preserve.has(u.capability);
    const text = truncateToTokens(u.output, preserved ? budget : perNode);
    return { ...base(u, preserved), text, truncated: text !== u.output };
  });
  const live = () => items.filter((i) => !i.dropped);
  const total = () => live().reduce((sum, i) => sum + estimateTokens(i.text), 0);

  while (total() > budget) {
    const ordinary = live().filter((i) => !i.preserved);
    if (ordinary.length === 0) break;
    const longest = ordinary.reduce((a, b) => (charCount(b.text) > charCount(a.text) ? b : a));
    const length = charCount(longest.text);
    if (length > MIN_NODE_CHARS) {
      longest.text = truncateMiddle(
        longest.original,
        Math.max(MIN_NODE_CHARS, Math.floor(length * SHRINK_RATIO)),
      );
      longest.truncated = true;
    } else ordinary[0]!.dropped = true;
  }

  const kept = live().map(({ original: _o, dropped: _d, ...item }) => ({
    ...item,
    kept_chars: charCount(item.text),
  }));
  const estimated = total();
  return {
    items: kept,
    compaction: {
      original_chars: items.reduce((sum, i) => sum + i.original_chars, 0),
      kept_chars: kept.reduce((sum, i) => sum + i.kept_chars, 0),
      dropped: items.filter((i) => i.dropped).map((i) => i.node_id),
      truncated: kept.filter((i) => i.truncated).map((i) => i.node_id),
      estimated_tokens: estimated,
      budget_tokens: budget,
      over_budget_due_to_deliverable: estimated > budget && kept.some((i) => i.preserved),
    },
  };
}

function base(u: UpstreamOutput, preserved: boolean): Omit<Working, 'text' | 'truncated'> {
  const chars = charCount(u.output);
  return {
    node_id: u.node_id,
    capability: u.capability,
    original: u.output,
    original_chars: chars,
    kept_chars: chars,
    preserved,
    dropped: false,
  };
}

/** The context as one text for an agent: each kept node under a `### <node> · <capability>` heading. */
export function renderContext(items: readonly ContextItem[]): string {
  return items.map((i) => `### ${i.node_id} · ${i.capability}\n${i.text}`).join('\n\n');
}
