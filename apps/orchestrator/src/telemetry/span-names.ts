/** Every span the orchestrator opens; a closed set so dashboards can rely on the names. */
export const SPAN_NAMES = [
  'reach.run',
  'reach.discovery',
  'reach.plan',
  'reach.layer',
  'reach.node',
  'reach.attempt',
] as const;

/** One of {@link SPAN_NAMES}. */
export type SpanName = (typeof SPAN_NAMES)[number];
