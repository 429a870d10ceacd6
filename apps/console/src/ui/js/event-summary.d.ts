/** The levels of a plan as `[a] → [b, c] → [d]`. */
export function formatLevels(levels: unknown): string;
/** The details of one trace event as a single line (the type is shown beside it, not in it). */
export function summarizeEvent(event: { type: string; data: Record<string, unknown> }): string;
